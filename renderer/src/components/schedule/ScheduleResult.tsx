import { useMemo } from 'react';
import { Link } from 'react-router';
import type { Job } from '../../api/types.ts';
import { formatTime } from '../../lib/time.ts';
import { VegaChart } from '../charts/VegaChart.tsx';
import { powerSpec, priceSpec, sitePowerSpec, socSpec } from '../charts/scheduleSpecs.ts';
import { overlaySpec } from '../charts/overlaySpec.ts';
import { ScheduleTable } from './ScheduleTable.tsx';
import { scheduleOverlay } from './scheduleTable.ts';
import { ScheduleConstraints } from './ScheduleConstraints.tsx';
import { JobWarnings } from '../JobStatus.tsx';
import { Fact } from '../Facts.tsx';
import { formatMoney, isPenalty, moneySentence } from '../../lib/money.ts';

interface Props {
  job: Job;
  zone: string;
  /** Sensor names by id, for legends. */
  names: Record<number, string>;
}

/**
 * What a scheduling job produced: power per step, state of charge against its limits and
 * targets, prices, site power, total cost, soft constraints met or breached and the cost per
 * commitment; for a failed job, the reason.
 */
export function ScheduleResult({ job, zone, names }: Props) {
  // Only a scheduling job's result has devices; automation and forecasting jobs show theirs elsewhere.
  const result = job.result && 'devices' in job.result ? job.result : undefined;
  const specs = useMemo(() => {
    if (!result?.devices) return undefined;
    return {
      overlay: overlaySpec(scheduleOverlay(result, zone, names)),
      power: powerSpec(result, zone, names),
      soc: socSpec(result, zone, names),
      prices: priceSpec(result, zone),
      site: sitePowerSpec(result, zone),
    };
  }, [result, zone, names]);

  if (job.status === 'failed') {
    return (
      <div className="notice error schedule-failure" role="alert">
        <strong>The schedule could not be computed.</strong>
        <p className="reason">{job.error ?? 'The job failed without a reason.'}</p>
        <PricesRemedy error={job.error} names={names} />
      </div>
    );
  }
  if (!result || !specs) return null;
  const steps = result.devices[0]?.power_mw.length ?? 0;
  const costs = Object.entries(result.commitment_costs ?? {});
  // The solver's total is the energy cost alone; penalties for breached soft constraints come apart.
  const energy = result.commitment_costs?.energy ?? result.total_cost;
  const penalties = costs.filter(([name]) => isPenalty(name)).reduce((sum, [, cost]) => sum + cost, 0);
  return (
    <div className="schedule-result">
      <JobWarnings warnings={result.warnings} zone={zone} />
      <dl className="facts">
        <Fact term="Scheduler">{result.scheduler_info?.scheduler ?? '–'}</Fact>
        <Fact term="From">{formatTime(result.start_ms, zone)}</Fact>
        <Fact term="Until">{formatTime(result.end_ms, zone)}</Fact>
        <Fact term="Steps">
          {steps} × {Math.round(result.step_ms / 60_000)} min
        </Fact>
        <div>
          <dt>Energy</dt>
          <dd data-testid="energy-cost">{energy === undefined ? '–' : moneySentence(energy, result.currency)}</dd>
        </div>
        {costs.some(([name]) => isPenalty(name)) && (
          <div>
            <dt>Breach penalties</dt>
            <dd data-testid="breach-penalties" className={penalties > 0.005 ? 'danger' : undefined}>
              {formatMoney(penalties, result.currency)}
            </dd>
          </div>
        )}
      </dl>
      <ScheduleConstraints result={result} zone={zone} names={names} />
      {specs.overlay && <VegaChart spec={specs.overlay} label="Power, state of charge and price" />}
      <ScheduleTable result={result} zone={zone} names={names} jobId={job.id} />
      <VegaChart spec={specs.power} label="Scheduled power" />
      {specs.soc && <VegaChart spec={specs.soc} label="State of charge" />}
      {specs.prices && <VegaChart spec={specs.prices} label="Prices" />}
      {specs.site && <VegaChart spec={specs.site} label="Site power" />}
    </div>
  );
}

/**
 * What to do about unknown prices: the server names the sensor (FlexMeasures' message), the
 * operator needs its name and where to add prices.
 */
function PricesRemedy({ error, names }: { error: string | null; names: Record<number, string> }) {
  if (!error || !/Prices unknown/.test(error)) return null;
  const id = Number(/\(sensor (\d+)\)/.exec(error)?.[1]);
  if (!Number.isSafeInteger(id)) {
    return <p>Choose a price sensor (Price of consumption) or give a fixed price in the flex-context.</p>;
  }
  return (
    <p>
      No prices of sensor <Link to={`/sensors/${id}`}>{names[id] ?? `#${id}`}</Link> are known for this window. Upload prices for it on its
      page (CSV), let an automation forecast them, or choose another price sensor.
    </p>
  );
}
