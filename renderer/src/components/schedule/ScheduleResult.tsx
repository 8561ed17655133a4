import { useMemo } from 'react';
import type { Job } from '../../api/types.ts';
import { formatTime } from '../../lib/time.ts';
import { VegaChart } from '../charts/VegaChart.tsx';
import { powerSpec, priceSpec, sitePowerSpec, socSpec } from '../charts/scheduleSpecs.ts';
import { ScheduleConstraints } from './ScheduleConstraints.tsx';

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
  const result = job.result ?? undefined;
  const specs = useMemo(() => {
    if (!result?.devices) return undefined;
    return {
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
      </div>
    );
  }
  if (!result || !specs) return null;
  const steps = result.devices[0]?.power_mw.length ?? 0;
  return (
    <div className="schedule-result">
      <dl className="facts">
        <div>
          <dt>Scheduler</dt>
          <dd>{result.scheduler_info?.scheduler ?? '–'}</dd>
        </div>
        <div>
          <dt>From</dt>
          <dd>{formatTime(result.start_ms, zone)}</dd>
        </div>
        <div>
          <dt>Until</dt>
          <dd>{formatTime(result.end_ms, zone)}</dd>
        </div>
        <div>
          <dt>Steps</dt>
          <dd>
            {steps} × {Math.round(result.step_ms / 60_000)} min
          </dd>
        </div>
        <div>
          <dt>Total cost</dt>
          <dd data-testid="total-cost">
            {result.total_cost === undefined ? '–' : result.total_cost.toLocaleString(undefined, { maximumFractionDigits: 2 })}
          </dd>
        </div>
      </dl>
      <ScheduleConstraints result={result} zone={zone} names={names} />
      <VegaChart spec={specs.power} label="Scheduled power" />
      {specs.soc && <VegaChart spec={specs.soc} label="State of charge" />}
      {specs.prices && <VegaChart spec={specs.prices} label="Prices" />}
      {specs.site && <VegaChart spec={specs.site} label="Site power" />}
    </div>
  );
}
