import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { deviceSetupAnswer, type DeviceSetupAnswer } from '../../../server/src/contracts/devices.ts';
import { API, request } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import * as wire from '../api/contracts.ts';
import { useSession } from '../app/session.tsx';
import { DeviceMade } from '../components/device/DeviceMade.tsx';
import { TargetFields } from '../components/device/TargetFields.tsx';
import { Field } from '../components/Field.tsx';
import { ErrorNotice, Loading } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import { deviceSetupBody, storesEnergy, type DeviceForm, type DeviceKind, type TargetRow } from '../lib/deviceSetup.ts';

const kinds: Record<DeviceKind, string> = {
  battery: 'Battery',
  'ev-charger': 'EV charger',
  pv: 'Solar panels',
  process: 'Heat pump or process',
};

/**
 * Plain device set-up under a site: a battery, an EV charger, solar panels or a heat pump/process
 * in kW, kWh and %, from which the server makes the asset, its sensors and its flex-model.
 */
export function AddDevicePage() {
  const { id } = useParams();
  const session = useSession();
  const site = useApi(`${API}/assets/${id}`, undefined, wire.assetAnswer);
  const [form, setForm] = useState<DeviceForm>({
    kind: 'battery',
    name: '',
    timezone: session.user.timezone,
    resolution: '15',
    power: '',
    capacity: '',
    reserve: '',
    charging: '',
    discharging: '',
    bidirectional: false,
    hours: '',
    processType: 'SHIFTABLE',
  });
  const [targets, setTargets] = useState<TargetRow[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [made, setMade] = useState<DeviceSetupAnswer | null>(null);
  const fields = error instanceof ApiError ? error.fields : {};
  const set = (key: keyof DeviceForm) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  if (site.error) return <ErrorNotice error={site.error} />;
  if (!site.data) return <Loading what="Loading the site" />;

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(null);
    setMade(null);
    try {
      setMade(
        await request(`${API}/assets/${id}/devices`, {
          method: 'POST',
          json: deviceSetupBody(form, targets),
          answer: deviceSetupAnswer,
        }),
      );
    } catch (err) {
      setError(err);
    }
    setBusy(false);
  }

  const storage = storesEnergy(form.kind);
  return (
    <article className="page" aria-labelledby="device-title">
      <div className="page-head">
        <h1 id="device-title">Add a device</h1>
        <span className="muted">
          to <Link to={`/assets/${site.data.id}`}>{site.data.name}</Link>
        </span>
      </div>
      <form className="card grid-form" onSubmit={(e) => void submit(e)} aria-label="Add a device">
        <Field label="Kind of device" errors={fields.kind}>
          <select value={form.kind} onChange={set('kind')}>
            {Object.entries(kinds).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Name" errors={fields.name}>
          <input value={form.name} onChange={set('name')} required />
        </Field>
        <Field label="Time zone" errors={fields.timezone} hint="Of the sensors made, and of the charging targets">
          <input value={form.timezone} onChange={set('timezone')} required />
        </Field>
        <Field label="Resolution (minutes)" errors={fields.resolution} hint="One power value per this many minutes">
          <select value={form.resolution} onChange={set('resolution')}>
            <option value="5">5</option>
            <option value="15">15</option>
            <option value="60">60</option>
          </select>
        </Field>
        <Field label={form.kind === 'pv' ? 'Peak power (kW)' : 'Power (kW)'} errors={fields.power}>
          <input type="number" min="0" step="any" value={form.power} onChange={set('power')} required />
        </Field>
        {storage && (
          <>
            <Field label="Capacity (kWh)" errors={fields.capacity}>
              <input type="number" min="0" step="any" value={form.capacity} onChange={set('capacity')} required />
            </Field>
            <Field label="Reserve (%)" errors={fields.soc_min} hint="Never discharged below this share of the capacity">
              <input type="number" min="0" max="100" step="any" value={form.reserve} onChange={set('reserve')} />
            </Field>
            <Field label="Charging efficiency (%)" errors={fields.charging_efficiency}>
              <input type="number" min="1" max="100" step="any" value={form.charging} onChange={set('charging')} />
            </Field>
            {(form.kind === 'battery' || form.bidirectional) && (
              <Field label="Discharging efficiency (%)" errors={fields.discharging_efficiency}>
                <input type="number" min="1" max="100" step="any" value={form.discharging} onChange={set('discharging')} />
              </Field>
            )}
          </>
        )}
        {form.kind === 'ev-charger' && (
          <>
            <label className="checkbox">
              <input type="checkbox" checked={form.bidirectional} onChange={(e) => setForm({ ...form, bidirectional: e.target.checked })} />
              Two-way charger (the car can feed the site)
            </label>
            <TargetFields targets={targets} onChange={setTargets} fields={fields} at="soc_targets" />
          </>
        )}
        {form.kind === 'process' && (
          <>
            <Field label="Run time (hours)" errors={fields.duration}>
              <input type="number" min="0" step="any" value={form.hours} onChange={set('hours')} required />
            </Field>
            <Field label="How it may run" errors={fields.process_type}>
              <select value={form.processType} onChange={set('processType')}>
                <option value="SHIFTABLE">Shiftable: in one go, at the best time</option>
                <option value="BREAKABLE">Breakable: in parts</option>
                <option value="INFLEXIBLE">Inflexible: right away</option>
              </select>
            </Field>
          </>
        )}
        {form.kind === 'pv' && <p className="hint wide">The site’s schedules will count the panels’ power as an inflexible device.</p>}
        {Object.keys(fields).length === 0 && <ErrorNotice error={error} />}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Adding…' : 'Add device'}
          </button>
        </div>
      </form>
      {made && <DeviceMade made={made} />}
    </article>
  );
}
