import type { AssetType } from '../../api/types.ts';
import { Field } from '../Field.tsx';
import { IdSelect } from '../IdSelect.tsx';
import { typeLabel } from '../../lib/assetTypes.ts';

type Key = 'type' | 'latitude' | 'longitude';

interface Props {
  form: Record<Key, string>;
  set: (key: Key) => (e: { target: { value: string } }) => void;
  fields: Record<string, string[] | undefined>;
  types: AssetType[];
  /** New assets must pick a type; an existing one already has one. */
  choose?: boolean;
}

/** The type and location inputs shared by the new-asset and edit-asset forms. */
export function AssetKindFields({ form, set, fields, types, choose = false }: Props) {
  return (
    <>
      <Field label="Type" errors={fields.generic_asset_type_id}>
        <IdSelect
          required={choose}
          value={form.type}
          onChange={set('type')}
          items={types}
          label={(t) => typeLabel(t.name)}
          none={choose ? 'Choose a type' : undefined}
        />
      </Field>
      <Field label="Latitude" errors={fields.latitude}>
        <input type="number" step="any" value={form.latitude} onChange={set('latitude')} />
      </Field>
      <Field label="Longitude" errors={fields.longitude}>
        <input type="number" step="any" value={form.longitude} onChange={set('longitude')} />
      </Field>
    </>
  );
}
