import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { DateTime } from 'luxon';
import type { z } from 'zod';
import { API, request } from '../../api/client.ts';
import * as replay from '../../../../server/src/contracts/batteryReplay.ts';
import { useForm } from '../../hooks/useForm.ts';
import { usePolling } from '../../hooks/usePolling.ts';
import { useSubmit } from '../../hooks/useSubmit.ts';
import { formatMoney } from '../../lib/money.ts';
import { Field } from '../Field.tsx';
import { SubmitBar } from '../Form.tsx';
import { ErrorNotice } from '../Status.tsx';

type ReplayJob = z.infer<typeof replay.batteryReplayJob>;
type Result = z.infer<typeof replay.batteryReplayResult>;

/** How often a running replay is asked how far it came. */
const POLL_MS = 1000;

const lastMonth = (zone: string) => DateTime.now().setZone(zone).startOf('month').minus({ months: 1 });

/** The form as typed: sizes as `kWh/kW` separated by commas, prices in EUR/kWh. */
function blank(zone: string) {
  return {
    sizes: '5/2.5, 10/5',
    efficiency: '90',
    tariff: 'time-of-use',
    price: '0.30',
    cheapFrom: '23:00',
    cheapTo: '07:00',
    cheapPrice: '0.20',
    feedIn: '0.08',
    sensor: '',
    start: lastMonth(zone).toISODate()!,
    end: lastMonth(zone).plus({ months: 1 }).toISODate()!,
  };
}
type FormState = ReturnType<typeof blank>;

/** The API's request from the form (the server checks it and names the fields at fault). */
function bodyOf(f: FormState) {
  const sizes = f.sizes.split(',').map((s) => {
    const [kwh, kw] = s.split('/').map((v) => Number(v.trim()));
    return { capacity_kwh: kwh, power_kw: kw, efficiency: Number(f.efficiency) / 100 };
  });
  const tariff =
    f.tariff === 'site'
      ? { kind: 'site' }
      : f.tariff === 'day-ahead'
        ? { kind: 'day-ahead', sensor: Number(f.sensor), ...(f.feedIn === '' ? {} : { feed_in_price: Number(f.feedIn) }) }
        : {
            kind: 'time-of-use',
            price: Number(f.price),
            periods: f.cheapPrice === '' ? [] : [{ from: f.cheapFrom, to: f.cheapTo, price: Number(f.cheapPrice) }],
            feed_in_price: Number(f.feedIn || 0),
          };
  return { sizes, tariff, start: f.start, end: f.end };
}

/**
 * "Would a battery pay?": replays the site's measured history with one or a few battery sizes
 * (a job on the server), shows how far it came while it runs, then what each size would have
 * saved, per month as a chart and in a table.
 */
export function BatteryReplay({ assetId, zone }: { assetId: string; zone: string }) {
  const { form, set } = useForm(() => blank(zone));
  const submitting = useSubmit();
  const [jobUrl, setJobUrl] = useState<string | null>(null);
  const [job, setJob] = useState<ReplayJob | null>(null);
  const [pollError, setPollError] = useState<unknown>(null);
  const running = jobUrl !== null && job?.status !== 'finished' && job?.status !== 'failed';
  const poll = useCallback(() => {
    if (!jobUrl) return;
    request(jobUrl, { answer: replay.batteryReplayJob }).then(setJob, setPollError);
  }, [jobUrl]);
  useEffect(poll, [poll]);
  usePolling(poll, POLL_MS, running);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    await submitting.run(async () => {
      const started = await request(`${API}/assets/${assetId}/battery-replay`, {
        method: 'POST',
        json: bodyOf(form),
        answer: replay.batteryReplayStarted,
      });
      setJob(null);
      setJobUrl(started['job-url']);
    });
  };
  const errors = submitting.fields;
  const under = (prefix: string) => Object.entries(errors).flatMap(([k, m]) => (k.startsWith(prefix) ? m : []));
  return (
    <div className="card battery-replay">
      <form onSubmit={submit} aria-label="Would a battery pay?">
        <div className="grid-form">
          <Field label="Battery sizes (kWh/kW)" hint="Separated by commas, e.g. 5/2.5, 10/5 (at most 4)" errors={under('sizes')}>
            <input value={form.sizes} onChange={set('sizes')} required />
          </Field>
          <Field label="Round-trip efficiency (%)">
            <input type="number" min={1} max={100} value={form.efficiency} onChange={set('efficiency')} required />
          </Field>
          <Field label="Tariff" errors={under('tariff')}>
            <select value={form.tariff} onChange={set('tariff')}>
              <option value="time-of-use">Time of use (enter below)</option>
              <option value="site">The site&apos;s tariff</option>
              <option value="day-ahead">Day-ahead prices (a price sensor)</option>
            </select>
          </Field>
          <TariffFields form={form} set={set} />
          <Field label={`First day (${zone})`} errors={errors.start}>
            <input type="date" value={form.start} onChange={set('start')} required />
          </Field>
          <Field label="Day after the last" errors={errors.end}>
            <input type="date" value={form.end} onChange={set('end')} required />
          </Field>
        </div>
        <SubmitBar submitting={submitting} busyLabel="Starting…">
          Replay
        </SubmitBar>
      </form>
      {pollError !== null && <ErrorNotice error={pollError} />}
      {jobUrl && <ReplayState job={job} />}
    </div>
  );
}

/** The tariff's own inputs: a time-of-use tariff's prices, or the price sensor of a day-ahead series. */
function TariffFields({ form, set }: { form: FormState; set: (key: keyof FormState) => (e: { target: { value: string } }) => void }) {
  if (form.tariff === 'site') return null;
  const feedIn = (
    <Field label="Feed-in (EUR/kWh)" hint={form.tariff === 'day-ahead' ? 'Empty: the day-ahead price' : undefined}>
      <input type="number" step="any" value={form.feedIn} onChange={set('feedIn')} />
    </Field>
  );
  if (form.tariff === 'day-ahead') {
    return (
      <>
        <Field label="Price sensor id">
          <input type="number" min={1} value={form.sensor} onChange={set('sensor')} required />
        </Field>
        {feedIn}
      </>
    );
  }
  return (
    <>
      <Field label="Price (EUR/kWh)">
        <input type="number" step="any" value={form.price} onChange={set('price')} required />
      </Field>
      <Field label="Cheaper hours from">
        <input type="time" value={form.cheapFrom} onChange={set('cheapFrom')} />
      </Field>
      <Field label="Cheaper hours until">
        <input type="time" value={form.cheapTo} onChange={set('cheapTo')} />
      </Field>
      <Field label="Cheaper price (EUR/kWh)" hint="Empty: one price all day">
        <input type="number" step="any" value={form.cheapPrice} onChange={set('cheapPrice')} />
      </Field>
      {feedIn}
    </>
  );
}

/** A replay under way (queued, or so many days of so many), failed, or its result. */
function ReplayState({ job }: { job: ReplayJob | null }) {
  if (job?.status === 'failed') return <ErrorNotice error={new Error(job.error ?? 'The replay failed.')} />;
  if (job?.status === 'finished' && job.result) return <ReplayResult result={job.result} />;
  const p = job?.progress;
  return (
    <div className="replay-progress">
      <progress value={p?.done ?? 0} max={p?.total ?? 1} aria-label="Replay progress" />
      <span role="status">{p ? `Replayed ${p.done} of ${p.total} days…` : 'Waiting to start…'}</span>
    </div>
  );
}

const sizeName = (s: Result['sizes'][number]) => `${s.capacity_kwh} kWh / ${s.power_kw} kW`;
const eur = (v: number) => `${v < 0 ? '−' : ''}${formatMoney(v, 'EUR')}`;

/** What each size would have saved: the chart per month, then savings per year and cycles, then the months in a table. */
function ReplayResult({ result }: { result: Result }) {
  return (
    <div className="replay-result" aria-label="Replay result">
      <ReplayChart result={result} />
      <table className="data" aria-label="Savings per battery">
        <thead>
          <tr>
            <th scope="col">Battery</th>
            <th scope="col">Cost with</th>
            <th scope="col">Saved</th>
            <th scope="col">Savings per year</th>
            <th scope="col">Cycles</th>
          </tr>
        </thead>
        <tbody>
          {result.sizes.map((s) => (
            <tr key={sizeName(s)} data-size={sizeName(s)}>
              <th scope="row">{sizeName(s)}</th>
              <td>{eur(s.cost_with)}</td>
              <td>{eur(s.savings)}</td>
              <td data-figure="savings-per-year">{eur(s.savings_per_year)}</td>
              <td data-figure="cycles">{s.cycles}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        Without a battery: <strong data-figure="cost-without">{eur(result.cost_without)}</strong> over {result.days} days ({result.start} to{' '}
        {result.end}).
      </p>
      {result.warnings.map((w) => (
        <p key={w} className="badge warned">
          <span aria-hidden="true">⚠ </span>
          {w}
        </p>
      ))}
    </div>
  );
}

const WIDTH = 600;
const HEIGHT = 160;
const AXIS = 18;

/** Cost per month without a battery and with each size, as grouped bars in SVG scaled to the width it gets (phone or desktop). */
function ReplayChart({ result }: { result: Result }) {
  const series = [
    { name: 'Without', values: result.months.map((m) => m.cost_without) },
    ...result.sizes.map((s) => ({ name: `With ${sizeName(s)}`, values: s.months.map((m) => m.cost_with) })),
  ];
  const all = series.flatMap((s) => s.values).concat(0);
  const [lo, hi] = [Math.min(...all), Math.max(...all)];
  const y = (v: number) => ((hi - v) / (hi - lo || 1)) * (HEIGHT - AXIS);
  const slot = WIDTH / result.months.length;
  const bar = (slot * 0.8) / series.length;
  return (
    <figure className="replay-chart" aria-label="Cost per month">
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" role="img" aria-label="Cost per month without and with each battery">
        <line x1={0} x2={WIDTH} y1={y(0)} y2={y(0)} className="zero" />
        {result.months.map((m, i) => (
          <g key={m.month}>
            {series.map((s, k) => {
              const label = `${m.month} ${s.name}: ${eur(s.values[i])}`;
              const x = i * slot + slot * 0.1 + k * bar;
              return (
                <g key={s.name}>
                  <rect
                    x={x}
                    width={bar}
                    y={Math.min(y(0), y(s.values[i]))}
                    height={Math.max(1, Math.abs(y(0) - y(s.values[i])))}
                    className={`series-${k}`}
                    aria-label={label}
                  >
                    <title>{label}</title>
                  </rect>
                  {/* Values written on the bars while they are wide enough to hold them (a few months). */}
                  {bar >= 60 && (
                    <text x={x + bar / 2} y={Math.min(y(0), y(s.values[i])) + 18} textAnchor="middle" className="on-bar">
                      {eur(s.values[i])}
                    </text>
                  )}
                </g>
              );
            })}
            <text x={i * slot + slot / 2} y={HEIGHT - 4} textAnchor="middle">
              {m.month}
            </text>
          </g>
        ))}
      </svg>
      <figcaption>
        {series.map((s, k) => (
          <span key={s.name} className="legend">
            <span className={`swatch series-${k}`} aria-hidden="true" /> {s.name}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
