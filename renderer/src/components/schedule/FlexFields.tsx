import type { Dispatch, SetStateAction } from 'react';
import type { FieldMessages } from '../../api/errors.ts';
import type { Sensor } from '../../api/types.ts';
import { Field } from '../Field.tsx';
import {
  breachPriceUnit,
  breachPrices,
  contextSensors,
  EFFICIENCY_UNIT,
  contextTexts,
  POWER_UNIT,
  relaxFlags,
  type AdvancedKey,
  storageNumbers,
  storageTexts,
  type ContextKey,
  type FlexForm,
  type ProcessKey,
  type StorageKey,
} from './flexForm.ts';
import { IdSelect, withUnitAndId } from '../IdSelect.tsx';

interface Props {
  form: FlexForm;
  setForm: Dispatch<SetStateAction<FlexForm>>;
  errors: FieldMessages;
}

const powerHint = `a bare number is in ${POWER_UNIT}; or write the unit, e.g. 0.1 MW`;
const hints: Partial<Record<StorageKey | ContextKey | AdvancedKey | 'state-of-charge', string>> = {
  'state-of-charge': 'the SoC at the start is read from it, the scheduled SoC written to it',
  'power-capacity': powerHint,
  'consumption-capacity': powerHint,
  'production-capacity': powerHint,
  'roundtrip-efficiency': 'in %, e.g. 90',
  'charging-efficiency': 'in %, e.g. 95',
  'discharging-efficiency': 'in %, e.g. 95',
  'storage-efficiency': 'kept per step, in %, e.g. 99.99',
  'site-power-capacity': powerHint,
  'site-consumption-capacity': powerHint,
  'site-production-capacity': powerHint,
  'soc-minima-breach-price': 'a bare number is in the currency shown, e.g. 1000',
  'soc-maxima-breach-price': 'a bare number is in the currency shown, e.g. 1000',
  'consumption-breach-price': 'a bare number is in the currency shown, e.g. 100',
  'production-breach-price': 'a bare number is in the currency shown, e.g. 100',
  'site-consumption-breach-price': 'a bare number is in the currency shown, e.g. 100',
  'site-production-breach-price': 'a bare number is in the currency shown, e.g. 100',
};

/** Plain labels, with the unit a bare number is taken in; the API key is shown beside as secondary text. */
const labels: Record<(typeof storageTexts)[number] | ContextKey | AdvancedKey, string> = {
  'power-capacity': `Power capacity (${POWER_UNIT})`,
  'consumption-capacity': `Charging capacity (${POWER_UNIT})`,
  'production-capacity': `Discharging capacity (${POWER_UNIT})`,
  'roundtrip-efficiency': `Round-trip efficiency (${EFFICIENCY_UNIT})`,
  'charging-efficiency': `Charging efficiency (${EFFICIENCY_UNIT})`,
  'discharging-efficiency': `Discharging efficiency (${EFFICIENCY_UNIT})`,
  'storage-efficiency': `Storage efficiency (${EFFICIENCY_UNIT})`,
  'consumption-price-sensor': 'Price of consumption',
  'production-price-sensor': 'Price of production',
  'site-power-capacity': `Grid connection capacity (${POWER_UNIT})`,
  'site-consumption-capacity': `Site consumption limit (${POWER_UNIT})`,
  'site-production-capacity': `Site production limit (${POWER_UNIT})`,
  'relax-constraints': 'Relax constraints',
  'relax-soc-constraints': 'Relax SoC limits',
  'relax-capacity-constraints': 'Relax device capacities',
  'relax-site-capacity-constraints': 'Relax site capacities',
  'soc-minima-breach-price': 'Price of SoC below a minimum or target',
  'soc-maxima-breach-price': 'Price of SoC above a maximum or target',
  'consumption-breach-price': 'Price of charging above capacity',
  'production-breach-price': 'Price of discharging above capacity',
  'site-consumption-breach-price': 'Price of site consumption above limit',
  'site-production-breach-price': 'Price of site production above limit',
};

/** A field's hint: its API key as secondary text, then how to write the value. */
const hintOf = (key: keyof typeof labels | 'state-of-charge') => (
  <>
    <code className="api-key">{key}</code>
    {hints[key] ? ` · ${hints[key]}` : ''}
  </>
);

/** A labelled text input per key, the value as typed (flexForm.ts reads it when the form is sent). */
function TextFields<K extends keyof typeof labels>(props: {
  keys: readonly K[];
  values: Record<K, string>;
  set: (key: K) => (e: { target: { value: string } }) => void;
  errors: FieldMessages;
}) {
  return props.keys.map((key) => (
    <Field key={key} label={labels[key]} errors={props.errors[key]} hint={hintOf(key)}>
      <input name={key} value={props.values[key]} onChange={props.set(key)} />
    </Field>
  ));
}

/** The storage flex-model: state of charge, capacities, efficiencies and targets. */
export function StorageFields({
  form,
  setForm,
  errors,
  zone,
  socSensors,
  isEv,
}: Props & { zone: string; socSensors: Sensor[]; isEv: boolean }) {
  const set = (key: StorageKey) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, storage: { ...f.storage, [key]: e.target.value } }));
  const setTarget = (i: number, key: 'datetime' | 'value', value: string) =>
    setForm((f) => ({ ...f, targets: f.targets.map((t, j) => (j === i ? { ...t, [key]: value } : t)) }));
  const soc = (key: (typeof storageNumbers)[number], label: string) => (
    <Field
      key={key}
      label={`${label} (${form.storage['soc-unit']})`}
      errors={errors[key]}
      hint={key === 'soc-at-start' && form.socSensor ? 'leave empty to read it from the state-of-charge sensor' : undefined}
    >
      <input inputMode="decimal" name={key} value={form.storage[key]} onChange={set(key)} />
    </Field>
  );
  return (
    <>
      <div className="grid-form">
        <Field label="SoC unit" errors={errors['soc-unit']}>
          <select name="soc-unit" value={form.storage['soc-unit']} onChange={set('soc-unit')}>
            <option value="kWh">kWh</option>
            <option value="MWh">MWh</option>
          </select>
        </Field>
        <Field label="State-of-charge sensor" errors={errors['state-of-charge']} hint={hintOf('state-of-charge')}>
          <IdSelect
            name="state-of-charge"
            value={form.socSensor}
            onChange={(e) => setForm((f) => ({ ...f, socSensor: e.target.value }))}
            items={socSensors}
            none="None"
            label={withUnitAndId}
          />
        </Field>
        {soc('soc-at-start', 'SoC at start')}
        {isEv && (
          <Field
            label="Plugged in now, SoC (%)"
            errors={errors['plugged-in']}
            hint="the car’s SoC as it is plugged in, in % of the SoC maximum; planned from as the SoC at start"
          >
            <input
              inputMode="decimal"
              name="plugged-in"
              value={form.pluggedIn}
              onChange={(e) => setForm((f) => ({ ...f, pluggedIn: e.target.value }))}
            />
          </Field>
        )}
        {soc('soc-min', 'SoC minimum')}
        {soc('soc-max', 'SoC maximum')}
        <TextFields keys={storageTexts} values={form.storage} set={set} errors={errors} />
        <div className="field checkbox">
          <label>
            <input
              type="checkbox"
              checked={form.preferChargingSooner}
              onChange={(e) => setForm((f) => ({ ...f, preferChargingSooner: e.target.checked }))}
            />{' '}
            Prefer charging sooner
          </label>
        </div>
      </div>
      <fieldset className="targets">
        <legend>SoC targets ({zone})</legend>
        {errors['soc-targets'] && <small className="field-error">{errors['soc-targets'].join(' ')}</small>}
        {form.targets.map((t, i) => (
          <div className="target-row" key={i}>
            <Field label={`Target ${i + 1} time`} errors={errors[`soc-targets.${i}.datetime`]}>
              <input type="datetime-local" value={t.datetime} onChange={(e) => setTarget(i, 'datetime', e.target.value)} />
            </Field>
            <Field label={`Target ${i + 1} value (${form.storage['soc-unit']})`} errors={errors[`soc-targets.${i}.value`]}>
              <input inputMode="decimal" value={t.value} onChange={(e) => setTarget(i, 'value', e.target.value)} />
            </Field>
            <button type="button" onClick={() => setForm((f) => ({ ...f, targets: f.targets.filter((_, j) => j !== i) }))}>
              Remove target {i + 1}
            </button>
          </div>
        ))}
        <button type="button" onClick={() => setForm((f) => ({ ...f, targets: [...f.targets, { datetime: '', value: '' }] }))}>
          Add a target
        </button>
      </fieldset>
    </>
  );
}

/** The process flex-model: how long and how much power, and how it may be moved. */
export function ProcessFields({ form, setForm, errors }: Props) {
  const set = (key: ProcessKey) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, process: { ...f.process, [key]: e.target.value } }));
  return (
    <div className="grid-form">
      <Field label="Duration" errors={errors.duration} hint="ISO 8601, e.g. PT4H">
        <input name="duration" value={form.process.duration} onChange={set('duration')} />
      </Field>
      <Field label="Power (MW)" errors={errors.power}>
        <input name="power" inputMode="decimal" value={form.process.power} onChange={set('power')} />
      </Field>
      <Field label="Process type" errors={errors['process-type']}>
        <select value={form.process['process-type']} onChange={set('process-type')}>
          <option>INFLEXIBLE</option>
          <option>BREAKABLE</option>
          <option>SHIFTABLE</option>
        </select>
      </Field>
      <Field label="Optimization" errors={errors['optimization-sense']}>
        <select value={form.process['optimization-sense']} onChange={set('optimization-sense')}>
          <option value="MIN">MIN (lowest cost)</option>
          <option value="MAX">MAX</option>
        </select>
      </Field>
    </div>
  );
}

/** The flex-context: prices, inflexible devices and site capacities. */
export function FlexContextFields({ form, setForm, errors, sensors, currency }: Props & { sensors: Sensor[]; currency: string }) {
  const set = (key: ContextKey) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, context: { ...f.context, [key]: e.target.value } }));
  const priceSensors = sensors.filter((s) => s.unit.includes('/'));
  const powerSensors = sensors.filter((s) => /^(k|M|G)?W$/.test(s.unit));
  return (
    <div className="grid-form">
      {contextSensors.map((key) => (
        <Field key={key} label={labels[key]} errors={errors[key]} hint={hintOf(key)}>
          <IdSelect
            name={key}
            value={form.context[key]}
            onChange={set(key)}
            items={priceSensors}
            none="From the asset's settings"
            label={withUnitAndId}
          />
        </Field>
      ))}
      <TextFields keys={contextTexts} values={form.context} set={set} errors={errors} />
      <fieldset className="field">
        <legend>
          Inflexible devices (their power counts at the site) <code className="api-key">inflexible-device-sensors</code>
        </legend>
        {errors['inflexible-device-sensors'] && <small className="field-error">{errors['inflexible-device-sensors'].join(' ')}</small>}
        {powerSensors.length === 0 && <span className="muted">No power sensors to choose from.</span>}
        {powerSensors.map((s) => (
          <label key={s.id} className="checkbox">
            <input
              type="checkbox"
              checked={form.inflexible.includes(s.id)}
              onChange={(e) =>
                setForm((f) => ({
                  ...f,
                  inflexible: e.target.checked ? [...f.inflexible, s.id] : f.inflexible.filter((id) => id !== s.id),
                }))
              }
            />{' '}
            {s.name} #{s.id}
          </label>
        ))}
      </fieldset>
      <AdvancedFields form={form} setForm={setForm} errors={errors} currency={currency} />
    </div>
  );
}

/** Soft constraints: relax flags and breach prices, folded away as most sites need none. */
function AdvancedFields({ form, setForm, errors, currency }: Props & { currency: string }) {
  const set = (key: AdvancedKey) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, advanced: { ...f.advanced, [key]: e.target.value } }));
  const inUse = [...relaxFlags, ...breachPrices].some((k) => form.advanced[k]);
  return (
    <details className="advanced" open={inUse || undefined}>
      <summary>Advanced: soft constraints (relax flags, breach prices)</summary>
      <div className="grid-form">
        {relaxFlags.map((key) => (
          <Field key={key} label={labels[key]} errors={errors[key]} hint={hintOf(key)}>
            <select name={key} value={form.advanced[key]} onChange={set(key)}>
              <option value="">Server default</option>
              <option value="true">Yes</option>
              <option value="false">No</option>
            </select>
          </Field>
        ))}
        {breachPrices.map((key) => (
          <Field key={key} label={`${labels[key]} (${currency}/${breachPriceUnit(key)})`} errors={errors[key]} hint={hintOf(key)}>
            <input name={key} value={form.advanced[key]} onChange={set(key)} />
          </Field>
        ))}
      </div>
    </details>
  );
}
