import type { FieldMessages } from '../../api/errors.ts';
import type { DeviceForm } from '../../lib/deviceSetup.ts';
import { Field } from '../Field.tsx';

/** What the device form's parts share: its values, a setter per key and the server's field messages. */
export interface DeviceFieldsProps {
  form: DeviceForm;
  set: (key: keyof DeviceForm) => (e: { target: { value: string } }) => void;
  fields: FieldMessages;
}

/** What every device has: its name, zone, resolution and power. */
export function CommonDeviceFields({ form, set, fields }: DeviceFieldsProps) {
  return (
    <>
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
    </>
  );
}

/** What a device that stores energy has: capacity, reserve and efficiencies. */
export function StorageDeviceFields({ form, set, fields }: DeviceFieldsProps) {
  return (
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
  );
}

/** What a heat pump or process has: how long it runs and how it may be shifted. */
export function ProcessDeviceFields({ form, set, fields }: DeviceFieldsProps) {
  return (
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
  );
}
