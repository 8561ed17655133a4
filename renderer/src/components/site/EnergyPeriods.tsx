import { useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { DateTime } from 'luxon';
import type { z } from 'zod';
import { API, apiUrl, authHeaders } from '../../api/client.ts';
import * as cockpit from '../../../../server/src/contracts/cockpit.ts';
import { useApi } from '../../hooks/useApi.ts';
import { download } from '../../lib/download.ts';
import { formatMoney } from '../../lib/money.ts';
import { periodBarsSpec } from '../charts/periodSpec.ts';
import { VegaChart } from '../charts/VegaChart.tsx';
import { ErrorNotice, Loading } from '../Status.tsx';

type Answer = z.infer<typeof cockpit.energyPeriods>;
type Period = Answer['current'];
type Kind = Answer['period'];
const KINDS: Kind[] = ['day', 'week', 'month', 'year'];

/** A period as people name it: "Sun 30 Mar 2025", "Week 13 (24–30 Mar 2025)", "March 2025", "2025". */
function periodTitle(p: Period, kind: Kind, zone: string): string {
  const start = DateTime.fromISO(p.start, { zone });
  if (kind === 'day') return start.toFormat('ccc d LLL yyyy');
  if (kind === 'week') return `Week ${start.weekNumber} (${start.toFormat('d LLL')} – ${start.plus({ days: 6 }).toFormat('d LLL yyyy')})`;
  return start.toFormat(kind === 'month' ? 'LLLL yyyy' : 'yyyy');
}

const kwh = (v: number) => `${v.toLocaleString('en', { maximumFractionDigits: 1 })} kWh`;
const pct = (v: number | null) => (v === null ? '–' : `${v.toLocaleString('en', { maximumFractionDigits: 1 })} %`);
/** Money with its sign in front (a negative cost: the site earned). */
const money = (v: number | null, currency: string | null) =>
  v === null ? '–' : `${v < 0 ? '−' : ''}${formatMoney(v, currency ?? undefined)}`;

/** The key figures, each as its name and how to write it from a period. */
const FIGURES: [string, (p: Period, currency: string | null) => string][] = [
  ['Imported', (p) => kwh(p.imported_kwh)],
  ['Exported', (p) => kwh(p.exported_kwh)],
  ['PV produced', (p) => kwh(p.pv_kwh)],
  ['Consumed on site', (p) => kwh(p.consumed_kwh)],
  ['Self-consumption', (p) => pct(p.self_consumption_percent)],
  ['Self-sufficiency', (p) => pct(p.self_sufficiency_percent)],
  ['Battery throughput', (p) => `${kwh(p.battery_throughput_kwh)}${p.battery_cycles === null ? '' : `, ${p.battery_cycles} cycles`}`],
  ['EV energy', (p) => `${kwh(p.ev_kwh)}${p.ev_solar_percent === null ? '' : `, ${pct(p.ev_solar_percent)} solar`}`],
  ['Cost', (p, c) => money(p.money.cost, c)],
  ['Cost without flex', (p, c) => money(p.money.cost_without_flex, c)],
];

/** The period kind the address names; a week unless it names one. */
const kindOf = (text: string | null): Kind => KINDS.find((k) => k === text) ?? 'week';

/** The answer's two periods by name, and the chart of their parts. */
function viewOf(data: Answer, kind: Kind) {
  const zone = data.timezone;
  const names = { current: periodTitle(data.current, kind, zone), previous: periodTitle(data.previous, kind, zone) };
  const spec = periodBarsSpec(
    [
      { name: names.current, parts: data.current.parts },
      { name: names.previous, parts: data.previous.parts },
    ],
    kind,
    zone,
  );
  return { names, spec };
}

/** Saves the two periods' figures as the API's CSV (fetched with the session's token, which a plain link would not carry). */
function CsvButton({ assetId, kind, date }: { assetId: number; kind: Kind; date: string | undefined }) {
  const [saving, setSaving] = useState(false);
  const save = async () => {
    setSaving(true);
    const res = await fetch(apiUrl(`${API}/assets/${assetId}/energy`, { period: kind, start: date, format: 'csv' }), {
      headers: authHeaders(),
    });
    if (res.ok) download(`energy-${kind}-${date}.csv`, await res.text());
    setSaving(false);
  };
  return (
    <button type="button" disabled={!date || saving} onClick={() => void save()}>
      Download CSV
    </button>
  );
}

/**
 * A site's energy and money per day, week, month or year in its zone, beside the period before:
 * bars per part of the period, the key figures, and the CSV. The period is kept in the address
 * (`?energy=week&energy_date=2025-03-26`), so that a link or a reload shows the same one.
 */
export function EnergyPeriods({ assetId }: { assetId: number }) {
  const [params, setParams] = useSearchParams();
  const kind = kindOf(params.get('energy'));
  const date = params.get('energy_date') ?? undefined;
  const answer = useApi(`${API}/assets/${assetId}/energy`, { period: kind, start: date }, cockpit.energyPeriods);
  const show = (next: { kind?: Kind; date?: string }) =>
    setParams(
      (p) => {
        p.set('energy', next.kind ?? kind);
        if (next.date ?? date) p.set('energy_date', (next.date ?? date)!);
        return p;
      },
      { replace: true },
    );
  const data = answer.data;
  const localDate = (iso: string) => DateTime.fromISO(iso, { zone: data?.timezone }).toISODate()!;
  // The days the previous and the next period start on (the next starts where this one ends), once the answer is in.
  const steps = [
    { name: 'Previous', text: '‹ Previous', date: data && localDate(data.previous.start) },
    { name: 'Next', text: 'Next ›', date: data && localDate(data.current.end) },
  ];

  return (
    <div className="energy-periods">
      <div className="toolbar range-controls">
        <div className="segmented" role="radiogroup" aria-label="Period">
          {KINDS.map((k) => (
            <label key={k} className={k === kind ? 'active' : ''}>
              <input type="radio" name="energy-period" value={k} checked={k === kind} onChange={() => show({ kind: k })} />
              {k[0].toUpperCase() + k.slice(1)}
            </label>
          ))}
        </div>
        {steps.map(({ name, text, date }) => (
          <button
            key={name}
            type="button"
            disabled={!date || answer.loading}
            onClick={() => date && show({ date })}
            aria-label={`${name} ${kind}`}
          >
            {text}
          </button>
        ))}
        <CsvButton assetId={assetId} kind={kind} date={data && localDate(data.current.start)} />
      </div>
      {answer.error && <ErrorNotice error={answer.error} />}
      {/* The previous answer stays on screen while the next one loads, unless it is of another kind of period. */}
      {data?.period === kind ? <PeriodView data={data} kind={kind} /> : !answer.error && <Loading what="Summing the energy" />}
    </div>
  );
}

/** The two periods: their names, the bars of their parts, the key figures and how the money counts. */
function PeriodView({ data, kind }: { data: Answer; kind: Kind }) {
  const view = useMemo(() => viewOf(data, kind), [data, kind]);
  return (
    <>
      <h3 aria-label="Period shown">
        {view.names.current}{' '}
        <span className="muted">
          beside {view.names.previous}, times in {data.timezone}
        </span>
      </h3>
      <VegaChart spec={view.spec} label="Energy consumed per part of the period" />
      <div className="period-figures">
        {FIGURES.map(([name, write]) => (
          <div key={name} role="group" aria-label={name} className="period-figure">
            <span className="muted">{name}</span>
            <strong className="current">{write(data.current, data.currency)}</strong>
            <span className="previous muted">before: {write(data.previous, data.currency)}</span>
          </div>
        ))}
      </div>
      <MoneyNote period={data.current} currency={data.currency} />
    </>
  );
}

/** How the money is counted, and over how much of the period: it covers the measured steps with a plan in force only. */
function MoneyNote({ period, currency }: { period: Period; currency: string | null }) {
  const m = period.money;
  if (!m.steps) return <p className="muted">No plan was in force in this period: there is no money to count.</p>;
  return (
    <p className="muted" aria-label="How the money is counted">
      Money {currency ? `in ${currency}` : '(currency unknown)'} over {m.measured_steps} of {m.steps} planned steps measured, each priced as
      the plan in force at it had it.{' '}
      {m.rest_of_site === 'measured'
        ? 'Cost as it was from the grid meter; without flex: the rest of the site as measured, batteries idle, EVs charging at once.'
        : 'No grid meter: the rest of the site is as the plan forecast it; without flex: batteries idle, EVs charging at once.'}
      {m.fallback_steps > 0 && ` ${m.fallback_steps} steps were planned by the fallback scheduler.`}
    </p>
  );
}
