import type { Dispatch, SetStateAction } from 'react';
import type { FieldMessages } from '../../api/errors.ts';
import type { Sensor } from '../../api/types.ts';
import { Field } from '../Field.tsx';
import {
  contextSensors,
  contextTexts,
  storageNumbers,
  storageTexts,
  type ContextKey,
  type FlexForm,
  type ProcessKey,
  type StorageKey,
} from './flexForm.ts';

interface Props {
  form: FlexForm;
  setForm: Dispatch<SetStateAction<FlexForm>>;
  errors: FieldMessages;
}

const hints: Partial<Record<StorageKey | ContextKey, string>> = {
  'power-capacity': 'e.g. 25 kW',
  'consumption-capacity': 'e.g. 20 kW',
  'production-capacity': 'e.g. 20 kW',
  'roundtrip-efficiency': 'e.g. 0.9 or 90%',
  'charging-efficiency': 'e.g. 95%',
  'discharging-efficiency': 'e.g. 95%',
  'storage-efficiency': 'per step, e.g. 0.9999',
  'site-power-capacity': 'e.g. 100 kW',
  'site-consumption-capacity': 'e.g. 100 kW',
  'site-production-capacity': 'e.g. 80 kW',
};

/** The storage flex-model: state of charge, capacities, efficiencies and targets. */
export function StorageFields({ form, setForm, errors, zone }: Props & { zone: string }) {
  const set = (key: StorageKey) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, storage: { ...f.storage, [key]: e.target.value } }));
  const setTarget = (i: number, key: 'datetime' | 'value', value: string) =>
    setForm((f) => ({ ...f, targets: f.targets.map((t, j) => (j === i ? { ...t, [key]: value } : t)) }));
  const soc = (key: (typeof storageNumbers)[number], label: string) => (
    <Field key={key} label={`${label} (${form.storage['soc-unit']})`} errors={errors[key]}>
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
        {soc('soc-at-start', 'SoC at start')}
        {soc('soc-min', 'SoC minimum')}
        {soc('soc-max', 'SoC maximum')}
        {storageTexts.map((key) => (
          <Field key={key} label={key} errors={errors[key]} hint={hints[key]}>
            <input name={key} value={form.storage[key]} onChange={set(key)} />
          </Field>
        ))}
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
export function FlexContextFields({ form, setForm, errors, sensors }: Props & { sensors: Sensor[] }) {
  const set = (key: ContextKey) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, context: { ...f.context, [key]: e.target.value } }));
  const priceSensors = sensors.filter((s) => s.unit.includes('/'));
  const powerSensors = sensors.filter((s) => /^(k|M|G)?W$/.test(s.unit));
  return (
    <div className="grid-form">
      {contextSensors.map((key) => (
        <Field key={key} label={key} errors={errors[key]}>
          <select name={key} value={form.context[key]} onChange={set(key)}>
            <option value="">From the asset's settings</option>
            {priceSensors.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name} ({s.unit}) #{s.id}
              </option>
            ))}
          </select>
        </Field>
      ))}
      {contextTexts.map((key) => (
        <Field key={key} label={key} errors={errors[key]} hint={hints[key]}>
          <input name={key} value={form.context[key]} onChange={set(key)} />
        </Field>
      ))}
      <fieldset className="field">
        <legend>inflexible-device-sensors</legend>
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
    </div>
  );
}
