import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { API, request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import type { Asset, AssetType, Sensor } from '../../api/types.ts';
import { parseAttributes, sensorsToShow } from '../../lib/attributes.ts';
import { AssetKindFields } from './AssetKindFields.tsx';
import { Field } from '../Field.tsx';
import { SensorChecklist } from '../SensorChecklist.tsx';
import { ErrorNotice } from '../Status.tsx';

interface Props {
  asset: Asset;
  types: AssetType[];
  sensors: Sensor[];
  canEdit: boolean;
  canDelete: boolean;
  onSaved: () => void;
}

/** An asset's properties, editable by members of its account and deletable by its admins. */
export function AssetProperties({ asset, types, sensors, canEdit, canDelete, onSaved }: Props) {
  const navigate = useNavigate();
  const attributes = parseAttributes(asset.attributes);
  const shown = sensorsToShow(attributes);
  const [editing, setEditing] = useState(false);
  const [form, setForm] = useState({ name: '', type: '', latitude: '', longitude: '', shown: [] as number[] });
  const [error, setError] = useState<unknown>(null);
  const fields = error instanceof ApiError ? error.fields : {};
  const typeName = types.find((t) => t.id === asset.generic_asset_type_id)?.name ?? `type ${asset.generic_asset_type_id}`;

  function edit() {
    setForm({
      name: asset.name,
      type: String(asset.generic_asset_type_id),
      latitude: asset.latitude === null ? '' : String(asset.latitude),
      longitude: asset.longitude === null ? '' : String(asset.longitude),
      shown,
    });
    setError(null);
    setEditing(true);
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      await request(`${API}/assets/${asset.id}`, {
        method: 'PATCH',
        json: {
          name: form.name,
          generic_asset_type_id: Number(form.type),
          latitude: form.latitude === '' ? null : Number(form.latitude),
          longitude: form.longitude === '' ? null : Number(form.longitude),
          attributes: JSON.stringify({ ...attributes, sensors_to_show: form.shown }),
        },
      });
      setEditing(false);
      onSaved();
    } catch (err) {
      setError(err);
    }
  }

  async function remove() {
    if (!window.confirm(`Delete "${asset.name}" with its ${sensors.length} sensor(s) and all their data? This cannot be undone.`)) return;
    try {
      await request(`${API}/assets/${asset.id}`, { method: 'DELETE' });
      navigate('/', { replace: true });
    } catch (err) {
      setError(err);
    }
  }

  if (editing) {
    const set = (key: 'name' | 'type' | 'latitude' | 'longitude') => (e: { target: { value: string } }) =>
      setForm({ ...form, [key]: e.target.value });
    return (
      <form className="grid-form" onSubmit={save} aria-label="Edit asset">
        <Field label="Name" errors={fields.name}>
          <input required value={form.name} onChange={set('name')} />
        </Field>
        <AssetKindFields form={form} set={set} fields={fields} types={types} />
        <SensorChecklist
          className="field wide"
          legend="Sensors shown in the chart"
          sensors={sensors}
          chosen={form.shown}
          onChange={(shown) => setForm({ ...form, shown })}
          errors={fields.attributes}
        />
        {Object.keys(fields).length === 0 && <ErrorNotice error={error} />}
        <div className="actions">
          <button type="submit" className="primary">
            Save
          </button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </div>
      </form>
    );
  }

  return (
    <>
      <dl className="facts">
        <div>
          <dt>Type</dt>
          <dd>{typeName}</dd>
        </div>
        <div>
          <dt>Account</dt>
          <dd>{asset.account_id === null ? 'public' : asset.account_id}</dd>
        </div>
        <div>
          <dt>Location</dt>
          <dd>{asset.latitude === null ? '–' : `${asset.latitude}, ${asset.longitude}`}</dd>
        </div>
        <div>
          <dt>Chart shows</dt>
          <dd>{shown.length ? shown.map((id) => sensors.find((s) => s.id === id)?.name ?? `#${id}`).join(', ') : 'all sensors'}</dd>
        </div>
      </dl>
      <ErrorNotice error={error} />
      {(canEdit || canDelete) && (
        <div className="actions">
          {canEdit && (
            <button type="button" onClick={edit}>
              Edit asset
            </button>
          )}
          {canDelete && (
            <button type="button" className="danger" onClick={remove}>
              Delete asset
            </button>
          )}
        </div>
      )}
    </>
  );
}
