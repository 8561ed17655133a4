import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { API, request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import type { Sensor } from '../../api/types.ts';
import { useSession } from '../../app/session.tsx';
import { Field } from '../Field.tsx';
import { Empty, ErrorNotice } from '../Status.tsx';

/** The sensors of an asset, and a form to add one. */
export function SensorList({
  assetId,
  sensors,
  canAdd,
  onAdded,
}: {
  assetId: number;
  sensors: Sensor[];
  canAdd: boolean;
  onAdded: () => void;
}) {
  // The site's zone: its sensors', else the one chosen at set-up (the user's), never the browser's.
  const session = useSession();
  const [form, setForm] = useState({
    name: '',
    unit: 'kW',
    event_resolution: 'PT15M',
    timezone: sensors[0]?.timezone ?? session.user.timezone,
  });
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const fields = error instanceof ApiError ? error.fields : {};
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  async function add(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await request(`${API}/sensors`, { method: 'POST', json: { ...form, generic_asset_id: assetId } });
      setForm({ ...form, name: '' });
      onAdded();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      {sensors.length === 0 ? (
        <Empty>This asset has no sensors yet.</Empty>
      ) : (
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Sensor</th>
                <th scope="col">Unit</th>
                <th scope="col">Resolution</th>
                <th scope="col">Time zone</th>
                <th scope="col">Entity address</th>
              </tr>
            </thead>
            <tbody>
              {sensors.map((s) => (
                <tr key={s.id}>
                  <th scope="row">
                    <Link to={`/sensors/${s.id}`}>{s.name}</Link>
                  </th>
                  <td>{s.unit}</td>
                  <td>{s.event_resolution}</td>
                  <td>{s.timezone}</td>
                  <td>
                    <code>{s.entity_address}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canAdd && (
        <details>
          <summary>Add a sensor</summary>
          <form className="grid-form" onSubmit={add} aria-label="New sensor">
            <Field label="Sensor name" errors={fields.name}>
              <input required value={form.name} onChange={set('name')} />
            </Field>
            <Field label="Unit" errors={fields.unit} hint="e.g. kW, MW, kWh, EUR/MWh, °C">
              <input required value={form.unit} onChange={set('unit')} />
            </Field>
            <Field label="Resolution" errors={fields.event_resolution} hint="ISO 8601, e.g. PT15M, PT1H">
              <input required value={form.event_resolution} onChange={set('event_resolution')} />
            </Field>
            <Field label="Time zone" errors={fields.timezone}>
              <input value={form.timezone} onChange={set('timezone')} />
            </Field>
            {Object.keys(fields).length === 0 && <ErrorNotice error={error} />}
            <div className="actions">
              <button type="submit" className="primary" disabled={busy}>
                {busy ? 'Adding…' : 'Add sensor'}
              </button>
            </div>
          </form>
        </details>
      )}
    </>
  );
}
