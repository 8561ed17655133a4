import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { API, request } from '../../api/client.ts';
import type { Asset, AssetType, Sensor } from '../../api/types.ts';
import { useForm } from '../../hooks/useForm.ts';
import { useSubmit } from '../../hooks/useSubmit.ts';
import { parseAttributes, sensorsToShow } from '../../lib/attributes.ts';
import { AssetKindFields } from './AssetKindFields.tsx';
import { typeLabelOf } from '../../lib/assetTypes.ts';
import { Field } from '../Field.tsx';
import { Fact } from '../Facts.tsx';
import { FormError, SaveBar, SubmitButton } from '../Form.tsx';
import { Checklist } from '../Checklist.tsx';
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
  const shown = sensorsToShow(parseAttributes(asset.attributes));
  const [editing, setEditing] = useState(false);
  const removing = useSubmit();
  const typeName = typeLabelOf(types, asset.generic_asset_type_id);

  function remove() {
    if (!window.confirm(`Delete "${asset.name}" with its ${sensors.length} sensor(s) and all their data? This cannot be undone.`)) return;
    void removing.run(async () => {
      await request(`${API}/assets/${asset.id}`, { method: 'DELETE' });
      navigate('/', { replace: true });
    });
  }

  if (editing)
    return (
      <EditAsset
        asset={asset}
        types={types}
        sensors={sensors}
        onClose={() => setEditing(false)}
        onSaved={() => {
          setEditing(false);
          onSaved();
        }}
      />
    );

  return (
    <>
      <dl className="facts">
        <Fact term="Type">{typeName}</Fact>
        <Fact term="Account">{asset.account_id === null ? 'public' : asset.account_id}</Fact>
        <Fact term="Location">{asset.latitude === null ? '–' : `${asset.latitude}, ${asset.longitude}`}</Fact>
        <Fact term="Chart shows">
          {shown.length ? shown.map((id) => sensors.find((s) => s.id === id)?.name ?? `#${id}`).join(', ') : 'all sensors'}
        </Fact>
      </dl>
      <ErrorNotice error={removing.error} />
      {(canEdit || canDelete) && (
        <div className="actions">
          {canEdit && (
            <button type="button" onClick={() => setEditing(true)}>
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

/** The asset's name, type, location and charted sensors as a form, starting from what is stored. */
function EditAsset({
  asset,
  types,
  sensors,
  onClose,
  onSaved,
}: {
  asset: Asset;
  types: AssetType[];
  sensors: Sensor[];
  onClose: () => void;
  onSaved: () => void;
}) {
  const attributes = parseAttributes(asset.attributes);
  const { form, setForm, set } = useForm(() => ({
    name: asset.name,
    type: String(asset.generic_asset_type_id),
    latitude: asset.latitude === null ? '' : String(asset.latitude),
    longitude: asset.longitude === null ? '' : String(asset.longitude),
    shown: sensorsToShow(attributes),
  }));
  const submitting = useSubmit();
  const { fields } = submitting;

  function save(e: FormEvent) {
    e.preventDefault();
    void submitting.run(async () => {
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
      onSaved();
    });
  }

  return (
    <form className="grid-form" onSubmit={save} aria-label="Edit asset">
      <Field label="Name" errors={fields.name}>
        <input required value={form.name} onChange={set('name')} />
      </Field>
      <AssetKindFields form={form} set={set} fields={fields} types={types} />
      <Checklist
        className="field wide"
        legend="Sensors shown in the chart"
        items={sensors}
        chosen={form.shown}
        onChange={(shown) => setForm({ ...form, shown })}
        errors={fields.attributes}
      />
      <FormError error={submitting.error} />
      <SaveBar>
        <SubmitButton>Save</SubmitButton>
        <button type="button" onClick={onClose}>
          Cancel
        </button>
      </SaveBar>
    </form>
  );
}
