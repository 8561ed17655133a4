import { useMemo } from 'react';
import { Link } from 'react-router';
import { API } from '../../api/client.ts';
import * as cockpit from '../../../../server/src/contracts/cockpit.ts';
import { useApi } from '../../hooks/useApi.ts';
import { usePolling } from '../../hooks/usePolling.ts';
import { formatTime } from '../../lib/time.ts';
import { planAheadSpec, type PlanAhead } from '../charts/planAheadSpec.ts';
import { VegaChart } from '../charts/VegaChart.tsx';
import { ErrorNotice, Loading } from '../Status.tsx';

/** How far ahead the glance looks. */
const HOURS = 24;
/** The plan moves on as time does, and a new plan may be made: read again every minute. */
const REFRESH_MS = 60_000;

/** Stretches as people read them in the site's zone: "2027-03-09 17:00 – 2027-03-10 11:00". */
const stretches = (list: { start: string; end: string }[], zone: string) =>
  list.map((s) => `${formatTime(s.start, zone)} – ${formatTime(s.end, zone)}`).join(', ');

/** What the chart cannot say plainly: where nothing is planned or forecast, degraded plans and missed targets. */
function PlanNotes({ plan }: { plan: PlanAhead }) {
  const zone = plan.timezone;
  const degraded = plan.plans.filter((p) => p.degraded);
  const targets = plan.devices.flatMap((d) => d.targets.map((t) => ({ ...t, asset: d.asset })));
  return (
    <ul className="plan-notes" aria-label="About this plan">
      {plan.no_prices.length > 0 && <li data-note="no-plan">No plan (unknown, not zero): {stretches(plan.no_prices, zone)}</li>}
      {degraded.map((p) => (
        <li key={p.job_id} data-note="degraded" className="warning">
          Degraded plan (made {formatTime(p.made_at, zone)}
          {p.fallback ? ', by the fallback scheduler' : ''}): {p.warnings.map((w) => w.message).join(' ')}{' '}
          <Link to={`/jobs/${p.job_id}`}>the job</Link>
        </li>
      ))}
      {targets
        .filter((t) => t.met === false)
        .map((t) => (
          <li key={`${t.job_id}@${t.at}`} data-note="target-missed" className="warning">
            {t.asset}: target of {t.soc_kwh} kWh at {formatTime(t.at, zone)} missed by the plan
          </li>
        ))}
      {targets
        .filter((t) => t.met === null)
        .map((t) => (
          <li key={`${t.asset}@${t.at}`} data-note="target-unplanned">
            {t.asset}: target of {t.soc_kwh} kWh at {formatTime(t.at, zone)} not planned yet
          </li>
        ))}
      {plan.forecasts
        .filter((f) => f.no_forecast.length > 0)
        .map((f) => (
          <li key={f.sensor_id} data-note="no-forecast">
            No {f.role === 'pv' ? 'PV' : 'load'} forecast for {f.name}: {stretches(f.no_forecast, zone)}
          </li>
        ))}
    </ul>
  );
}

/**
 * The next 24 hours of a site at a glance: its devices' planned power and state of charge with
 * their targets, the PV and load forecasts, the prices, and a line at now, in the site's zone;
 * nothing for a site without schedulable devices or forecasts.
 */
export function PlanAheadGlance({ assetId, name }: { assetId: number; name: string }) {
  const data = useApi(`${API}/assets/${assetId}/plan-ahead`, { hours: HOURS }, cockpit.planAhead);
  usePolling(data.reload, REFRESH_MS);
  const spec = useMemo(() => data.data && planAheadSpec(data.data), [data.data]);
  if (data.error) return <ErrorNotice error={data.error} />;
  if (!data.data) return <Loading what="Loading the plan ahead" />;
  const plan = data.data;
  if (!plan.devices.length && !plan.forecasts.length) return null;
  return (
    <section className="card plan-ahead" aria-label={`Next ${HOURS} hours of ${name}`}>
      <h2>
        {name}: next {HOURS} hours
      </h2>
      <p className="muted">
        Power in kW, consumption positive (charging and using are positive, PV is negative); prices per MWh; times in {plan.timezone}. The
        dashed red line is now, {formatTime(plan.now, plan.timezone)}.
      </p>
      {spec ? (
        <VegaChart spec={spec} label={`Plan ahead of ${name}`} />
      ) : (
        <p className="empty">Nothing is planned or forecast for the next {HOURS} hours.</p>
      )}
      <PlanNotes plan={plan} />
    </section>
  );
}
