import { DateTime } from 'luxon';
import type { z } from 'zod';
import { API } from '../../api/client.ts';
import * as cockpit from '../../../../server/src/contracts/cockpit.ts';
import { useApi } from '../../hooks/useApi.ts';
import { formatMoney, moneySentence } from '../../lib/money.ts';
import { DataTable } from '../DataTable.tsx';
import { Empty, ErrorNotice } from '../Status.tsx';
import { MoneyBars } from './MoneyBars.tsx';

type AssetKpis = z.infer<typeof cockpit.assetKpis>;
type Day = AssetKpis['days'][number];
type Part = Day['devices'][number];

/** Savings as a verb: `saves € 1.20`, `loses € 0.49`, or a dash when nothing is measured. */
const savings = (amount: number | null, currency: string | null) =>
  amount === null
    ? '–'
    : Math.abs(amount) < 0.005
      ? 'saves nothing'
      : `${amount > 0 ? 'saves' : 'loses'} ${formatMoney(amount, currency ?? undefined)}`;
const cost = (amount: number | null, currency: string | null) => (amount === null ? '–' : moneySentence(amount, currency ?? undefined));
const kWh = (mwh: number) => `${(mwh * 1000).toLocaleString('en', { maximumFractionDigits: 1 })} kWh`;

/**
 * What this month's plans cost and save, in the site's zone and currency, counted by the plan in
 * force at each step (the newest made before the step began, so a Compute now moves no step
 * already begun): so far and ahead, which plans count, fallbacks marked, the realised figures
 * explained, per day (a table and bars) and per device.
 */
export function MoneyPanel({ assetId }: { assetId: string }) {
  // Without a window the server answers this month in the site's zone.
  const kpis = useApi(`${API}/assets/${assetId}/kpis`, undefined, cockpit.assetKpis);
  return (
    <>
      <ErrorNotice error={kpis.error} />
      {kpis.data && <MoneyThisMonth kpis={kpis.data} />}
    </>
  );
}

function MoneyThisMonth({ kpis }: { kpis: AssetKpis }) {
  const { so_far: soFar, ahead, currency, timezone: zone } = kpis;
  if (kpis.total.steps === 0) return <Empty>No plan is in force at any step this month yet.</Empty>;
  const at = (iso: string) => DateTime.fromISO(iso).setZone(zone).toFormat('d LLL HH:mm');
  return (
    <div className="card money" aria-label="Money this month" role="region">
      <p className="muted">
        Days in {zone}; amounts in {currency ?? 'the prices’ currency'}.
      </p>
      <dl aria-label="This month so far">
        <dt>So far (steps begun by {at(kpis.now)}), as planned</dt>
        <dd>{cost(soFar.plan_cost, currency)}</dd>
        <dt>Doing nothing (batteries idle, EVs charging at once)</dt>
        <dd>{cost(soFar.baseline_cost, currency)}</dd>
        <dt>Planned savings so far</dt>
        <dd>{savings(soFar.planned_savings, currency)}</dd>
        <dt>Realised savings so far</dt>
        <dd>{savings(soFar.realised_savings, currency)}</dd>
      </dl>
      <dl aria-label="Rest of the month">
        <dt>Rest of the month, as the plan in force now says</dt>
        <dd>{ahead.steps ? `${cost(ahead.plan_cost, currency)}; ${savings(ahead.planned_savings, currency)}` : 'nothing planned yet'}</dd>
      </dl>
      <PlanInForce kpis={kpis} at={at} />
      {kpis.total.fallback_steps > 0 && (
        <div className="notice warn" role="alert">
          {kpis.total.fallback_steps} step{kpis.total.fallback_steps === 1 ? ' is' : 's are'} counted from fallback plans: the solver found
          no feasible plan there, so these figures are degraded.
        </div>
      )}
      <RealisedExplained kpis={kpis} />
      <h3>Per day</h3>
      <MoneyBars days={kpis.days} currency={currency} />
      <DaysTable kpis={kpis} />
      <h3>Per device</h3>
      <PartsTable parts={kpis.devices} currency={currency} label="Money per device" />
      {kpis.days.map((day) => (
        <details key={day.period}>
          <summary>Devices on {dayLabel(day.period)}</summary>
          <PartsTable parts={day.devices} currency={currency} label={`Money per device on ${dayLabel(day.period)}`} />
        </details>
      ))}
    </div>
  );
}

const dayLabel = (period: string) => DateTime.fromISO(period).toFormat('ccc d LLL');

/** Which plans count: the rule, and the newest plans in force this month with when they were made. */
function PlanInForce({ kpis, at }: { kpis: AssetKpis; at: (iso: string) => string }) {
  const shown = kpis.plans.slice(0, 3);
  const more = kpis.plans.length - shown.length;
  return (
    <p aria-label="Plan in force">
      Plan in force at each step: the newest plan made before the step began; a plan made later never changes a step already begun. This
      month counts:{' '}
      {shown.map((p, i) => (
        <span key={p.job_id} className={p.fallback ? 'warn' : undefined}>
          {i > 0 && '; '}made at {at(p.made_at)} for {at(p.start)}–{at(p.end)} ({p.steps} step{p.steps === 1 ? '' : 's'}
          {p.fallback ? ', fallback: degraded' : ''})
        </span>
      ))}
      {more > 0 && `; and ${more} older plan${more === 1 ? '' : 's'}`}.
    </p>
  );
}

/**
 * The realised figures in words for the latest day measured: over which hours, what each device
 * did as measured, what that cost against doing nothing, and what the plan still has ahead that day.
 */
function RealisedExplained({ kpis }: { kpis: AssetKpis }) {
  const day = [...kpis.days].reverse().find((d) => d.measured_steps > 0);
  if (!day || day.measured_from === null || day.measured_to === null)
    return <p aria-label="Realised so far">Nothing measured yet: realised figures follow the devices’ measurements.</p>;
  const { currency, timezone: zone } = kpis;
  const hour = (iso: string) => DateTime.fromISO(iso).setZone(zone).toFormat('HH:mm');
  const devices = day.devices.filter((p) => p.sensor_id !== null);
  const did = devices
    .map((p) => `${p.name} charged ${kWh(p.measured_charged_mwh)} and discharged ${kWh(p.measured_discharged_mwh)}`)
    .join('; ');
  const later = devices.filter((p) => p.ahead_discharged_mwh > 0).map((p) => `${p.name} discharges ${kWh(p.ahead_discharged_mwh)}`);
  const today = DateTime.fromISO(kpis.now).setZone(zone).toISODate() === day.period;
  return (
    <p aria-label="Realised so far">
      Realised so far {today ? 'today' : `on ${dayLabel(day.period)}`} ({hour(day.measured_from)}–{hour(day.measured_to)},{' '}
      {day.measured_steps} of {day.steps} steps measured): {did}. At the step prices that {cost(day.realised_cost, currency)}, with the rest
      of the site {kpis.rest_of_site === 'measured' ? 'as the grid meter measured it' : 'as forecast (no grid meter)'}, against doing
      nothing (batteries idle, EVs charging at once) on the same steps: {savings(day.realised_savings, currency)}.
      {later.length > 0 && ` Later that day the plan in force: ${later.join('; ')}, when the energy bought earns.`}
    </p>
  );
}

/** One row a day: what the plans in force cost and save, and the realised savings. */
function DaysTable({ kpis }: { kpis: AssetKpis }) {
  const { currency } = kpis;
  const note = (d: Day) =>
    [d.past_steps < d.steps && (d.past_steps ? 'partly planned' : 'planned'), d.fallback_steps > 0 && `${d.fallback_steps} fallback`]
      .filter(Boolean)
      .join(', ');
  return (
    <DataTable
      label="Money per day"
      wrap="table-wrap money-table"
      // The zone is said above the table: a long zone name would widen the first column on a phone.
      columns={['Day', 'Plans in force', 'Planned savings', 'Realised savings']}
      rows={kpis.days}
      row={(d) => (
        <tr key={d.period} data-period={d.period} className={d.fallback_steps > 0 ? 'degraded' : undefined}>
          <th scope="row">
            {dayLabel(d.period)}
            {note(d) && <small> ({note(d)})</small>}
          </th>
          <td>{cost(d.plan_cost, currency)}</td>
          <td>{savings(d.planned_savings, currency)}</td>
          <td>{savings(d.realised_savings, currency)}</td>
        </tr>
      )}
    />
  );
}

/** One row a device, and the rest of the site: they add up to the period. */
function PartsTable({ parts, currency, label }: { parts: Part[]; currency: string | null; label: string }) {
  return (
    <DataTable
      label={label}
      wrap="table-wrap money-table"
      columns={['Device', 'Plans in force', 'Planned savings', 'Realised savings']}
      rows={parts}
      row={(p) => (
        <tr key={p.sensor_id ?? 'rest'}>
          <th scope="row">{p.asset && !p.name.startsWith(p.asset) ? `${p.name} (${p.asset})` : p.name}</th>
          <td>{cost(p.plan_cost, currency)}</td>
          <td>{savings(p.planned_savings, currency)}</td>
          <td>{savings(p.realised_savings, currency)}</td>
        </tr>
      )}
    />
  );
}
