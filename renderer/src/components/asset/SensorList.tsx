import type { FormEvent } from 'react';
import { API, request } from '../../api/client.ts';
import type { Sensor } from '../../api/types.ts';
import { isPowerUnit } from '../../lib/attributes.ts';
import { useSession } from '../../app/session.tsx';
import { useForm } from '../../hooks/useForm.ts';
import { useSubmit } from '../../hooks/useSubmit.ts';
import { Field } from '../Field.tsx';
import { FoldedForm, SubmitBar } from '../Form.tsx';
import { SensorTable } from '../SensorTable.tsx';

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
  return (
    <>
      <SensorTable
        sensors={sensors}
        columns={['Unit', 'Resolution', 'Time zone', 'Entity address']}
        empty="This asset has no sensors yet."
      />
      {canAdd && <NewSensor assetId={assetId} zone={sensors[0]?.timezone} onAdded={onAdded} />}
    </>
  );
}

/** @param zone the zone of the asset's sensors, if it has any. */
function NewSensor({ assetId, zone, onAdded }: { assetId: number; zone: string | undefined; onAdded: () => void }) {
  // The site's zone: its sensors', else the one chosen at set-up (the user's), never the browser's.
  const session = useSession();
  const { form, setForm, set } = useForm({
    name: '',
    unit: 'kW',
    event_resolution: 'PT15M',
    timezone: zone ?? session.user.timezone,
    // No sign is chosen for the operator: guessing it is how a house load ends up read as export.
    sign: '',
  });
  const submitting = useSubmit();
  const { fields } = submitting;
  const power = isPowerUnit(form.unit);

  function add(e: FormEvent) {
    e.preventDefault();
    void submitting.run(async () => {
      const { sign, ...sensor } = form;
      const attributes = power ? JSON.stringify({ consumption_is_positive: sign === 'consumption' }) : undefined;
      await request(`${API}/sensors`, { method: 'POST', json: { ...sensor, attributes, generic_asset_id: assetId } });
      setForm({ ...form, name: '', sign: '' });
      onAdded();
    });
  }

  return (
    <FoldedForm summary="Add a sensor" label="New sensor" onSubmit={add}>
      <Field label="Sensor name" errors={fields.name}>
        <input required value={form.name} onChange={set('name')} />
      </Field>
      <Field label="Unit" errors={fields.unit} hint="e.g. kW, MW, kWh, EUR/MWh, °C">
        <input required value={form.unit} onChange={set('unit')} />
      </Field>
      {power && (
        <Field
          label="Sign"
          errors={fields.attributes}
          hint="Which way a positive value goes. A house load or a grid meter that counts import as positive is consumption positive; a PV inverter, production positive."
        >
          <select required value={form.sign} onChange={set('sign')}>
            <option value="">Choose…</option>
            <option value="consumption">Consumption positive (use and import are positive)</option>
            <option value="production">Production positive (generation and export are positive)</option>
          </select>
        </Field>
      )}
      <Field label="Resolution" errors={fields.event_resolution} hint="ISO 8601, e.g. PT15M, PT1H">
        <input required value={form.event_resolution} onChange={set('event_resolution')} />
      </Field>
      <Field label="Time zone" errors={fields.timezone}>
        <input value={form.timezone} onChange={set('timezone')} />
      </Field>
      <SubmitBar submitting={submitting} busyLabel="Adding…">
        Add sensor
      </SubmitBar>
    </FoldedForm>
  );
}
