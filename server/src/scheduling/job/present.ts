import type { Knex } from 'knex';
import type { JobResult, JobWarning } from '../../contracts/responses.ts';
import type { ProcessJobSpec } from '../../contracts/jobSpec.ts';
import type { ProcessProblem, ProcessSchedule } from '../../../../worker/src/tasks.ts';
import type { JobSensors } from '../buildProblem.ts';
import { sensorNamings } from '../../store/sensorNames.ts';
import { constraintResults } from '../constraintResults.ts';
import { planMoney, priceCurrency, round6 } from '../money.ts';
import { startFloored } from '../timeGrid.ts';
import { fallbackUsed, socAssumedOnArrival, socFromReading, unresolvedConstraints } from '../warnings.ts';
import type { SolvedStorageJob } from './choose.ts';
import type { StoredSchedule, StoredStorageSchedule } from './store.ts';

/** Where a job's time went: reading inputs, the worker thread, storing the result. */
export type JobTiming = Record<'read' | 'solve' | 'store', number>;

/** The job's result summary: the schedule, its money, which constraints held, and every warning. */
export async function presentStorageSchedule(
  job: SolvedStorageJob & { stored: StoredStorageSchedule; warnings: JobWarning[]; timing_ms: JobTiming },
  sensors: JobSensors,
  db: Knex,
): Promise<JobResult> {
  const { args, model, problem, schedule, beliefTimeMs, stored } = job;
  const { spec, fallback } = args;
  const constraints = constraintResults(problem, schedule, {
    startMs: spec.startMs,
    stepMs: spec.stepMs,
    devices: await Promise.all(
      spec.devices.map(async (d) => ({ sensorId: d.sensorId, assetId: (await sensors(d.sensorId)).generic_asset_id })),
    ),
  });
  const names = await sensorNamings(
    db,
    constraints.unresolved.map((d) => d.sensor),
  );
  return {
    scheduler_info: { scheduler: model },
    data_source_id: stored.source.id,
    start_ms: spec.startMs,
    end_ms: spec.endMs,
    step_ms: spec.stepMs,
    belief_time_ms: beliefTimeMs,
    soc_unit: spec.socUnit,
    total_cost: round6(schedule.totalCost),
    'num-beliefs': stored.numBeliefs,
    // The plan against doing nothing (batteries idle, EVs charging at once), in the price's currency.
    money: { currency: stored.currency, ...planMoney(stored.money) },
    stats: { ...schedule.stats },
    timing_ms: job.timing_ms,
    devices: spec.devices.map((d, i) => ({
      sensor_id: d.sensorId,
      power_mw: schedule.devices[i].powerMw.map(round6),
      soc_mwh: schedule.devices[i].socMwh.map(round6),
      soc_min_mwh: d.socMinMwh,
      soc_max_mwh: d.socMaxMwh,
      soc_targets: d.socTargets,
    })),
    site_power_mw: schedule.sitePowerMw.map(round6),
    cost_per_step: schedule.costPerStep.map(round6),
    consumption_price: [...problem.consumptionPrice],
    production_price: problem.productionPrice && [...problem.productionPrice],
    ...(schedule.commitmentCosts && {
      commitment_costs: Object.fromEntries(Object.entries(schedule.commitmentCosts).map(([name, cost]) => [name, round6(cost)])),
    }),
    ...constraints,
    currency: priceCurrency(spec.consumptionPrice) ?? undefined,
    warnings: [
      ...startFloored(spec),
      ...(fallback ? [fallbackUsed] : []),
      ...spec.devices.flatMap((d) => (d.socReading ? (socFromReading(d.socReading, spec.startMs) ?? []) : [])),
      ...spec.devices.flatMap((d) => (d.socAssumed ? [socAssumedOnArrival(d.socAssumed, spec.startMs)] : [])),
      ...job.warnings,
      ...unresolvedConstraints(constraints.unresolved, spec.stepMs, names),
    ],
  } satisfies JobResult;
}

/** A process job's result summary: the schedule, its cost and its warnings. */
export function presentProcessSchedule(job: {
  spec: ProcessJobSpec;
  problem: ProcessProblem;
  schedule: ProcessSchedule;
  beliefTimeMs: number;
  stored: StoredSchedule;
  warnings: JobWarning[];
}): JobResult {
  const { spec, problem, schedule, stored } = job;
  return {
    scheduler_info: { scheduler: 'ProcessScheduler' },
    data_source_id: stored.source.id,
    start_ms: spec.startMs,
    end_ms: spec.endMs,
    step_ms: spec.stepMs,
    belief_time_ms: job.beliefTimeMs,
    total_cost: round6(schedule.totalCost),
    'num-beliefs': stored.numBeliefs,
    devices: [{ sensor_id: spec.sensorId, power_mw: schedule.powerMw.map(round6) }],
    consumption_price: [...problem.consumptionPrice],
    currency: priceCurrency(spec.consumptionPrice) ?? undefined,
    warnings: [...startFloored(spec), ...job.warnings],
  } satisfies JobResult;
}
