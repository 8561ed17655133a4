import { useMemo, useState } from 'react';
import type { FieldMessages } from '../../api/errors.ts';
import type { Asset, Sensor } from '../../api/types.ts';
import { useVisibleSensors } from '../../hooks/useVisibleSensors.ts';
import { parseAttributes, storedFlex } from '../../lib/attributes.ts';
import { currencyOf } from '../../lib/money.ts';
import { isoToLocalInput, localInputToIso, nextHourMs } from '../../lib/time.ts';
import {
  DEFAULT_CURRENCY,
  FORM_CONTEXT_KEYS,
  PROCESS_MODEL_KEYS,
  STORAGE_MODEL_KEYS,
  formFromStored,
  mergeStored,
  rebaseForm,
  toFlexContext,
  toProcessFlexModel,
  toStorageFlexModel,
  type FlexForm,
} from './flexForm.ts';
import { flexFromAttributes } from './legacyAttributes.ts';

export const isPower = (s: Sensor) => /^(k|M|G)?W$/.test(s.unit);

/**
 * What the Schedule panel's form holds: the power sensor, start and duration of the schedule
 * asked for, and the flex-model and flex-context, starting from what the asset stores.
 */
export function useScheduleForm(asset: Asset, assetType: string, sensors: Sensor[], zone: string) {
  const attributes = useMemo(() => parseAttributes(asset.attributes), [asset.attributes]);
  const powerSensors = sensors.filter(isPower);
  const fromStored = () => storedForm(asset, powerSensors[0], zone);
  const [stored, setStored] = useState(fromStored);
  const [form, setForm] = useState<FlexForm>(stored.form);
  // The asset as stored is the one state both editors of the page start from: once either one
  // saves, the fields this form shows as stored follow (what the operator typed here stays).
  if (stored.key !== storedKeyOf(asset)) {
    const next = fromStored();
    setStored(next);
    setForm((f) => rebaseForm(f, stored.form, next.form));
  }
  const [chosenSensorId, setSensorId] = useState<number | undefined>();
  // Until the user chooses, the first power sensor (also once sensors arrive after the first render).
  const sensorId = chosenSensorId ?? powerSensors[0]?.id;
  const [start, setStart] = useState(() => isoToLocalInput(nextHourMs(), zone));
  const [duration, setDuration] = useState('PT24H');
  const [errors, setErrors] = useState<FieldMessages>({});
  const visible = useVisibleSensors(sensors.map((s) => s.id).join(','));
  const isProcess = assetType === 'process' || assetType === 'load';
  const isEv = assetType.endsWith('_evse');

  // Prices are in the chosen price sensor's currency; a bare breach price is taken in it.
  const chosenPrice = visible?.find((s) => String(s.id) === form.context['consumption-price-sensor']);
  const currency = currencyOf(chosenPrice?.unit) ?? DEFAULT_CURRENCY;

  function collect() {
    const model = isProcess ? toProcessFlexModel(form) : toStorageFlexModel(form, zone);
    const context = toFlexContext(form, currency);
    return { model: model.json, context: context.json, errors: { ...model.errors, ...context.errors } };
  }

  /** @returns the trigger's body, or null after showing what is missing or wrong. */
  function triggerBody() {
    const { model, context, errors: problems } = collect();
    const startIso = localInputToIso(start, zone);
    if (!startIso) problems.start = ['Missing data for required field.'];
    if (sensorId === undefined) problems.sensor = ['Choose the power sensor to schedule.'];
    setErrors(problems);
    if (Object.keys(problems).length) return null;
    return { start: startIso, duration, 'flex-model': model, 'flex-context': context };
  }

  /** @returns the asset fields that store the form as its defaults, or null after showing what is wrong. */
  function defaultsPatch() {
    const { model, context, errors: problems } = collect();
    setErrors(problems);
    if (Object.keys(problems).length) return null;
    // Stored in the asset's own fields; what older versions kept in the attributes goes. Keys
    // the form does not show (relax flags, commitments, …) are kept as stored.
    const rest = Object.fromEntries(Object.entries(attributes).filter(([k]) => k !== 'flex-model' && k !== 'flex-context'));
    const stored = storedFlex(asset);
    return {
      attributes: JSON.stringify(rest),
      flex_model: JSON.stringify(mergeStored(stored.model, model, isProcess ? PROCESS_MODEL_KEYS : STORAGE_MODEL_KEYS)),
      flex_context: JSON.stringify(mergeStored(stored.context, context, FORM_CONTEXT_KEYS)),
    };
  }

  return {
    powerSensors,
    usedAttributes: stored.used,
    form,
    setForm,
    sensorId,
    setSensorId,
    start,
    setStart,
    duration,
    setDuration,
    errors,
    setErrors,
    visible,
    isProcess,
    isEv,
    currency,
    triggerBody,
    defaultsPatch,
  };
}

export type ScheduleForm = ReturnType<typeof useScheduleForm>;

/** What the form is made from, as one text: it changes whenever the asset's stored settings do. */
const storedKeyOf = (asset: Asset) => `${asset.flex_model ?? ''}\n${asset.flex_context ?? ''}\n${asset.attributes}`;

/**
 * The form as the asset stores it: its flex-model and flex-context, and what FlexMeasures 0.18
 * kept as attributes filling the keys they leave out.
 * @returns the form, the attributes used, and the stored texts it was made from.
 */
function storedForm(asset: Asset, powerSensor: Sensor | undefined, zone: string) {
  const { model, context } = storedFlex(asset);
  const socUnit = typeof model['soc-unit'] === 'string' ? model['soc-unit'] : 'kWh';
  const legacy = flexFromAttributes(parseAttributes(powerSensor?.attributes), parseAttributes(asset.attributes), socUnit);
  return {
    key: storedKeyOf(asset),
    form: formFromStored({ ...legacy.model, ...model }, { ...legacy.context, ...context }, zone),
    used: legacy.used,
  };
}
