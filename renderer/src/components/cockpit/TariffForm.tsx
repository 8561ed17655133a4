import { useState, type FormEvent } from 'react';
import { API, request } from '../../api/client.ts';
import { ApiError } from '../../api/errors.ts';
import * as tariffs from '../../../../server/src/contracts/tariffs.ts';
import { Field } from '../Field.tsx';
import { ErrorNotice } from '../Status.tsx';
import { IdSelect, withUnit } from '../IdSelect.tsx';

interface PriceSensor {
  id: number;
  name: string;
  unit: string;
}

/**
 * A tariff without a CSV file: a base price and, optionally, a peak window on weekdays (or every
 * day) and a fixed feed-in price, in the price sensor's unit. The server writes it ahead as price
 * beliefs every hour.
 */
export function TariffForm({
  assetId,
  sensors,
  zone,
  onSaved,
}: {
  assetId: string;
  sensors: PriceSensor[];
  zone: string;
  onSaved: () => void;
}) {
  const [form, setForm] = useState({
    name: '',
    sensor: '',
    price: '',
    peakPrice: '',
    peakDays: 'weekdays',
    peakFrom: '07:00',
    peakTo: '23:00',
    feedInSensor: '',
    feedInPrice: '',
  });
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });
  const fields = error instanceof ApiError ? error.fields : {};

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const body = {
      name: form.name,
      timezone: zone,
      consumption_price_sensor: Number(form.sensor),
      price: Number(form.price),
      periods: form.peakPrice === '' ? [] : [{ days: form.peakDays, from: form.peakFrom, to: form.peakTo, price: Number(form.peakPrice) }],
      ...(form.feedInSensor && { production_price_sensor: Number(form.feedInSensor), feed_in_price: Number(form.feedInPrice) }),
    };
    try {
      await request(`${API}/assets/${assetId}/tariffs`, { method: 'POST', json: body, answer: tariffs.tariff });
      setError(undefined);
      setSaved(true);
      onSaved();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <form className="card" onSubmit={(e) => void submit(e)} aria-label="Add a tariff">
      <Field label="Tariff name" errors={fields.name}>
        <input value={form.name} onChange={set('name')} required />
      </Field>
      <Field label="Price sensor" errors={fields.consumption_price_sensor}>
        <IdSelect value={form.sensor} onChange={set('sensor')} required items={sensors} none="Choose…" label={withUnit} />
      </Field>
      <Field label="Base price" errors={fields.price} hint="In the price sensor's unit">
        <input type="number" step="any" value={form.price} onChange={set('price')} required />
      </Field>
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
      <Field label="Peak until" errors={fields['periods.0.to']}>
        <input type="time" value={form.peakTo} onChange={set('peakTo')} />
      </Field>
      <Field label="Feed-in price sensor" errors={fields.production_price_sensor}>
        <IdSelect value={form.feedInSensor} onChange={set('feedInSensor')} items={sensors} none="None" label={withUnit} />
      </Field>
      <Field label="Feed-in price" errors={fields.feed_in_price}>
        <input type="number" step="any" value={form.feedInPrice} onChange={set('feedInPrice')} />
      </Field>
      <ErrorNotice error={error} />
      {saved && <p role="status">Tariff saved; its prices are written ahead every hour.</p>}
      <button type="submit">Add tariff</button>
    </form>
  );
}
