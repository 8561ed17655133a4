import type { FieldMessages } from '../../api/errors.ts';
import { isMeter, type DeviceForm } from '../../lib/deviceSetup.ts';
import { Field } from '../Field.tsx';

/** What the device form's parts share: its values, a setter per key and the server's field messages. */
export interface DeviceFieldsProps {
  form: DeviceForm;
  set: (key: keyof DeviceForm) => (e: { target: { value: string } }) => void;
  fields: FieldMessages;
}

type NumberKey = 'power' | 'capacity' | 'reserve' | 'charging' | 'discharging' | 'arrival' | 'hours' | 'tilt' | 'azimuth';

/** A number input for one key of the form; any fraction, at least `min`. */
function numberInput(
  { form, set }: DeviceFieldsProps,
  key: NumberKey,
  min: string,
  { max, required }: { max?: string; required?: boolean } = {},
) {
  return <input type="number" min={min} max={max} step="any" value={form[key]} onChange={set(key)} required={required} />;
}

/** What every device has: its name, zone, resolution and (but a meter) its power. */
export function CommonDeviceFields(props: DeviceFieldsProps) {
  const { form, set, fields } = props;
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
      {!isMeter(form.kind) && (
        <Field label={form.kind === 'pv' ? 'Peak power (kW)' : 'Power (kW)'} errors={fields.power}>
          {numberInput(props, 'power', '0', { required: true })}
        </Field>
      )}
    </>
  );
}

/** What a device that stores energy has: capacity, reserve and efficiencies. */
export function StorageDeviceFields(props: DeviceFieldsProps) {
  const { form, fields } = props;
  return (
    <>
      <Field label="Capacity (kWh)" errors={fields.capacity}>
        {numberInput(props, 'capacity', '0', { required: true })}
      </Field>
      <Field label="Reserve (%)" errors={fields.soc_min} hint="Never discharged below this share of the capacity">
        {numberInput(props, 'reserve', '0', { max: '100' })}
      </Field>
      <Field label="Charging efficiency (%)" errors={fields.charging_efficiency}>
        {numberInput(props, 'charging', '1', { max: '100' })}
      </Field>
      {(form.kind === 'battery' || form.bidirectional) && (
        <Field label="Discharging efficiency (%)" errors={fields.discharging_efficiency}>
          {numberInput(props, 'discharging', '1', { max: '100' })}
        </Field>
      )}
      {form.kind === 'ev-charger' && (
        <Field label="Arrival SoC (%)" errors={fields.arrival_soc} hint="Planned from while the car reports no state of charge">
          {numberInput(props, 'arrival', '0', { max: '100' })}
        </Field>
      )}
    </>
  );
}

/** How solar panels face: with both, their forecast comes from the site's sky from the first day, before any history. */
export function PvDeviceFields(props: DeviceFieldsProps) {
  const { fields } = props;
  return (
    <>
      <Field label="Tilt (°)" errors={fields.tilt} hint="0 flat, 90 upright">
        {numberInput(props, 'tilt', '0', { max: '90' })}
      </Field>
      <Field label="Azimuth (°)" errors={fields.azimuth} hint="The way they face, from north: 90 east, 180 south, 270 west">
        {numberInput(props, 'azimuth', '0', { max: '359.99' })}
      </Field>
    </>
  );
}

/** What a heat pump or process has: how long it runs and how it may be shifted. */
export function ProcessDeviceFields(props: DeviceFieldsProps) {
  const { form, set, fields } = props;
  return (
    <>
      <Field label="Run time (hours)" errors={fields.duration}>
        {numberInput(props, 'hours', '0', { required: true })}
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
