import { useState, type FormEvent } from 'react';
import { API, request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import * as tariffs from '../../../../server/src/contracts/tariffs.ts';
import { Field } from '../Field.tsx';
import { ErrorNotice } from '../Status.tsx';
import { IdSelect, withUnit } from '../IdSelect.tsx';

export interface PriceSensor {
  id: number;
  name: string;
  unit: string;
  timezone: string;
}

/** A stored tariff with its definition read back, as the list and the form show it. */
export interface ShownTariff {
  id: number;
  definition: tariffs.TariffDefinition;
}

type FormState = Record<
  'name' | 'sensor' | 'unit' | 'price' | 'peakPrice' | 'peakDays' | 'peakFrom' | 'peakTo' | 'feedInSensor' | 'feedInPrice',
  string
>;

const blank: FormState = {
  name: '',
  sensor: '',
  unit: '',
  price: '',
  peakPrice: '',
  peakDays: 'weekdays',
  peakFrom: '07:00',
  peakTo: '23:00',
  feedInSensor: '',
  feedInPrice: '',
};

/** The form filled with a stored tariff (one peak window at most: the form's shape). */
function filled(t: ShownTariff): FormState {
  const d = t.definition;
  const peak = d.periods[0];
  return {
    name: d.name,
    sensor: String(d.consumption_price_sensor),
    unit: d.unit ?? '',
    price: String(d.price),
    peakPrice: peak ? String(peak.price) : '',
    peakDays: peak?.days ?? 'weekdays',
    peakFrom: peak?.from ?? '07:00',
    peakTo: peak?.to ?? '23:00',
    feedInSensor: d.production_price_sensor === undefined ? '' : String(d.production_price_sensor),
    feedInPrice: d.feed_in_price === undefined ? '' : String(d.feed_in_price),
  };
}

/** The units a price may be entered in: the sensor's currency per kWh or per MWh (converted when written). */
const unitsOf = (sensor: PriceSensor | undefined) =>
  sensor ? [...new Set([sensor.unit, `${sensor.unit.slice(0, 3)}/kWh`, `${sensor.unit.slice(0, 3)}/MWh`])] : [];

/** The API's definition of what the form holds. */
function bodyOf(form: FormState, sensor: PriceSensor | undefined, unit: string) {
  return {
    name: form.name,
    // The site's zone, which its price sensor is in: peak hours are the site's wall-clock hours.
    timezone: sensor?.timezone ?? 'UTC',
    consumption_price_sensor: Number(form.sensor),
    ...(unit && { unit }),
    price: Number(form.price),
    periods: form.peakPrice === '' ? [] : [{ days: form.peakDays, from: form.peakFrom, to: form.peakTo, price: Number(form.peakPrice) }],
    ...(form.feedInSensor && { production_price_sensor: Number(form.feedInSensor), feed_in_price: Number(form.feedInPrice) }),
  };
}

/**
 * A tariff without a CSV file, added or corrected: a base price and, optionally, a peak window on
 * weekdays (or every day) and a fixed feed-in price, in the unit chosen (kept as entered, converted
 * to the price sensor's unit when written). The server writes it ahead as price beliefs every hour;
 * a correction's prices supersede the old ones from the start of today.
 */
export function TariffForm({
  assetId,
  sensors,
  editing,
  onSaved,
  onCancel,
}: {
  assetId: string;
  sensors: PriceSensor[];
  /** The tariff being corrected; none to add one. */
  editing?: ShownTariff;
  onSaved: () => void;
  onCancel?: () => void;
}) {
  const [form, setForm] = useState<FormState>(() =>
    editing ? filled(editing) : { ...blank, sensor: sensors.length === 1 ? String(sensors[0].id) : '' },
  );
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const set = (key: keyof FormState) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const fields = error instanceof ApiError ? error.fields : {};
  const sensor = sensors.find((s) => String(s.id) === form.sensor);
  const unit = form.unit || sensor?.unit || '';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const body = bodyOf(form, sensor, unit);
    try {
      const path = editing ? `${API}/assets/${assetId}/tariffs/${editing.id}` : `${API}/assets/${assetId}/tariffs`;
      await request(path, { method: editing ? 'PUT' : 'POST', json: body, answer: tariffs.tariff });
      setError(undefined);
      setSaved(true);
      if (!editing) setForm({ ...blank, sensor: form.sensor, unit: form.unit });
      onSaved();
    } catch (err) {
      setError(err);
    }
  };

  const title = editing ? `Correct tariff ${editing.definition.name}` : 'Add a tariff';
  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label={title}>
      <h3>{title}</h3>
      <Field label="Tariff name" errors={fields.name}>
        <input value={form.name} onChange={set('name')} required />
      </Field>
      <Field label="Price sensor" errors={fields.consumption_price_sensor}>
        <IdSelect value={form.sensor} onChange={set('sensor')} required items={sensors} none="Choose…" label={withUnit} />
      </Field>
      <Field label="Prices in" errors={fields.unit} hint="Kept as entered; written in the price sensor's unit">
        <select value={unit} onChange={set('unit')} disabled={!sensor}>
          {unitsOf(sensor).map((u) => (
            <option key={u} value={u}>
              {u}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Base price" errors={fields.price} hint={unit ? `In ${unit}` : undefined}>
        <input type="number" step="any" value={form.price} onChange={set('price')} required />
      </Field>
      <PeakFields form={form} set={set} fields={fields} zone={sensor?.timezone} />
      <Field label="Feed-in price sensor" errors={fields.production_price_sensor}>
        <IdSelect value={form.feedInSensor} onChange={set('feedInSensor')} items={sensors} none="None" label={withUnit} />
      </Field>
      <Field label="Feed-in price" errors={fields.feed_in_price}>
        <input type="number" step="any" value={form.feedInPrice} onChange={set('feedInPrice')} />
      </Field>
      <ErrorNotice error={error} />
      {saved && (
        <p role="status">
          {editing
            ? 'Tariff corrected; its new prices replace the old ones from today.'
            : 'Tariff saved; its prices are written ahead every hour.'}
        </p>
      )}
      <div className="toolbar">
        <button type="submit">{editing ? 'Save correction' : 'Add tariff'}</button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

/** The form's one peak window: its price, days and wall-clock times at the site. */
function PeakFields({
  form,
  set,
  fields,
  zone,
}: {
  form: FormState;
  set: (key: keyof FormState) => (e: { target: { value: string } }) => void;
  fields: Record<string, string[] | undefined>;
  zone: string | undefined;
}) {
  return (
    <>
      <Field label="Peak price" errors={fields['periods.0.price']} hint="Leave empty for a fixed tariff">
        <input type="number" step="any" value={form.peakPrice} onChange={set('peakPrice')} />
      </Field>
      <Field label="Peak days">
        <select value={form.peakDays} onChange={set('peakDays')}>
          <option value="weekdays">Weekdays</option>
          <option value="all">Every day</option>
          <option value="weekend">Weekend</option>
        </select>
      </Field>
      <Field label="Peak from" errors={fields['periods.0.from']}>
        <input type="time" value={form.peakFrom} onChange={set('peakFrom')} />
      </Field>
      <Field label="Peak until" errors={fields['periods.0.to']} hint={zone ? `Wall-clock time at the site (${zone})` : undefined}>
        <input type="time" value={form.peakTo} onChange={set('peakTo')} />
      </Field>
    </>
  );
}
