import { solveTimeLimitSeconds } from './solveTimeLimit.ts';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { JobResult, JobWarning } from '../contracts/responses.ts';
import type { FlexsiteJobs, PrincipalRef, SchedulingJobArgs } from '../contracts/jobs.ts';
import type { JobHandler } from '../jobs/jobQueue.ts';
import { recordBeliefs, type BeliefInput } from '../store/beliefs.ts';
import { getOrCreateSource } from '../store/sources.ts';
import { unrecorded } from '../store/auditLog.ts';
import { getSensor, updateSensor, type SensorInContext } from '../store/sensors.ts';
import { firstRefused } from '../policies/references.ts';
import { describePrincipal, resolvePrincipal } from '../policies/principal.ts';
import { conversion } from '../domain/units.ts';
import { buildProcessProblem, buildStorageProblem, consumptionSign, sensorsOnce, type JobSensors } from './buildProblem.ts';
import type { JobSpec, ProcessJobSpec, StorageJobSpec } from '../contracts/jobSpec.ts';
import { jobReferences, scheduledSensors } from './jobReferences.ts';
import { constraintResults } from './constraintResults.ts';
import { SchedulingFailure } from './failure.ts';
import { currencyOf, moneySeries, planMoney } from './money.ts';
import { recordScheduleMoney } from '../store/scheduleMoney.ts';
import type { WorkerPool } from '../workers/workerPool.ts';
import type { Clock } from '../clock.ts';
import type { StorageProblem, StorageSchedule } from '../../../worker/src/tasks.ts';
import { fallbackUsed, socFromReading, unresolvedConstraints } from './warnings.ts';
import { startFloored } from './timeGrid.ts';

/**
 * Re-checks the owner's current rights on every sensor of the job, so that a job queued before a
 * role change, a deactivation or a move of a sensor cannot read or write where its owner no
 * longer may; and the rights of the scheduled asset's account, so that a job on an account's
 * asset never reads or writes what that account may not, whoever triggered it (an admin's
 * trigger on stored configuration included).
 * @param sensors the job's reader, which keeps the sensors for its inputs; without it (in the
 *   write transaction) they are read afresh, as they are now.
 * @throws a PermissionDenied failure naming what is refused.
 */
async function assertOwnerMay(db: Knex, ref: PrincipalRef | undefined, spec: JobSpec, sensors?: JobSensors): Promise<void> {
  const principal = await resolvePrincipal(db, ref);
  if (typeof principal === 'string') throw new SchedulingFailure('PermissionDenied', `${principal}; nothing was stored.`);
  const read = sensors ?? ((id: number) => getSensor(db, id));
  const scheduled = await read(scheduledSensors(spec)[0]);
  if (!scheduled) throw new SchedulingFailure('PermissionDenied', 'the scheduled sensor no longer exists; nothing was stored.');
  const refs = jobReferences(spec);
  const byOwner = await firstRefused(db, principal, refs, sensors);
  // Once the principal passes, whatever is refused is refused to the account.
  const r = byOwner ?? (await firstRefused(db, principal, refs, sensors, scheduled.account_id));
  if (r) {
    const who = byOwner
      ? `${describePrincipal(ref!)} may no longer`
      : `the account of the scheduled asset (${scheduled.account_id ?? 'public'}) may not`;
    throw new SchedulingFailure(
      'PermissionDenied',
      `${who} ${r.use === 'write' ? 'write to' : 'read'} sensor ${r.id} (${r.field}); nothing was stored.`,
    );
  }
}

const schedulerVersions: Record<string, string> = {
  StorageScheduler: '3',
  StorageFallbackScheduler: '1',
  ProcessScheduler: '1',
};

/**
 * The source each scheduler stores under: the fallback's own, so that its schedule is told apart
 * from an optimal one in charts, tables and latest-value reads.
 */
const sourceNames: Record<string, string> = {
  StorageScheduler: 'Flexsite',
  StorageFallbackScheduler: 'Flexsite fallback',
  ProcessScheduler: 'Flexsite',
};

/** The consumption price's currency (`EUR/MWh` → `EUR`; null for a fixed price, which is converted before and carries none). */
const priceCurrency = (price: StorageJobSpec['consumptionPrice']) => currencyOf(price && 'sensor' in price ? price.unit : undefined);

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const ms = (v: number) => Math.round(v * 10) / 10;

/**
 * The handler of the `scheduling` queue: reads the inputs as known at the belief time, solves in
 * a worker thread, and stores the result as beliefs of a `scheduler` data source.
 * @param options.fallback whether an infeasible storage job is followed by the fallback
 *   scheduler's job (0.18); FlexMeasures 1.0 retired it, so its dialect reports the failure only.
 */
export function schedulingHandler(
  db: Knex,
  pool: WorkerPool,
  log: Logger,
  clock: Clock,
  options: { fallback: boolean } = { fallback: true },
): JobHandler<FlexsiteJobs, 'scheduling'> {
  return async (job, runtime) => {
    const { args } = job;
    const { spec } = args;
    const sensors = sensorsOnce(db);
    await assertOwnerMay(db, args.principal, spec, sensors);
    const beliefTimeMs = spec.priorMs ?? clock.now();
    if (spec.scheduler === 'ProcessScheduler') {
      return runProcess({ db, pool, sensors, spec, principal: args.principal, beliefTimeMs });
    }
    const storageArgs = { ...args, spec };
    const started = performance.now();
    const warnings: JobWarning[] = [];
    const problem = await buildStorageProblem(spec, { db, sensors, beliefTimeMs, log, warnings });
    const read = performance.now();
    const { model, schedule } = await solveStorage(pool, log, problem, {
      args: storageArgs,
      fallbackAllowed: options.fallback,
      standIn: () => runtime.standIn({ ...args, fallback: true }),
    });
    const solved = performance.now();
    const stored = await storeStorageSchedule(db, sensors, { jobId: job.id, args: storageArgs, model, problem, schedule, beliefTimeMs });
    const timing_ms = { read: ms(read - started), solve: ms(solved - read), store: ms(performance.now() - solved) };
    return presentStorageSchedule({ args: storageArgs, model, problem, schedule, beliefTimeMs, stored, warnings, timing_ms }, sensors);
  };
}

/** What a solved storage job is stored and presented from. */
interface SolvedStorageJob {
  args: SchedulingJobArgs & { spec: StorageJobSpec };
  model: StorageModel;
  problem: StorageProblem;
  schedule: StorageSchedule;
  beliefTimeMs: number;
}

type StorageModel = 'StorageScheduler' | 'StorageFallbackScheduler';

/**
 * Chooses the scheduler (the fallback policy for a fallback job, a site's custom scheduler, or
 * the optimiser) and runs it in a worker thread.
 * @param how.standIn queues the fallback job that stands in for an infeasible one.
 * @throws a SchedulingFailure when the solver fails or finds the problem infeasible (naming the
 *   stand-in job when one is queued).
 */
async function solveStorage(
  pool: WorkerPool,
  log: Logger,
  problem: StorageProblem,
  how: { args: SolvedStorageJob['args']; fallbackAllowed: boolean; standIn: () => Promise<string> },
): Promise<{ model: StorageModel; schedule: StorageSchedule }> {
  const { spec, fallback } = how.args;
  const model = fallback ? 'StorageFallbackScheduler' : 'StorageScheduler';
  const failureName = fallback ? 'FallbackSchedulerError' : 'SchedulerError';
  const outcome = await (
    fallback
      ? pool.run('fallbackStorageSchedule', problem)
      : spec.customScheduler
        ? pool.run('customStorageSchedule', { plugin: spec.customScheduler, problem })
        : pool.run('storageSchedule', { ...problem, timeLimitSeconds: solveTimeLimitSeconds(problem.stepCount, problem.devices.length) })
  ).catch((err: unknown) => {
    log.error({ err }, 'solver failed');
    // A runtime error's text (a RangeError, say) tells people nothing: the log keeps it.
    const plain = err instanceof Error && err.constructor === Error;
    throw new SchedulingFailure(failureName, plain ? err.message : 'the solver stopped unexpectedly; the server log has the details.');
  });
  if (!outcome.ok) {
    if (!fallback && outcome.kind === 'infeasible' && how.fallbackAllowed) {
      // The reference answers an infeasible problem with a simple charge/discharge policy: a
      // job of its own.
      throw new SchedulingFailure('InfeasibleProblemException', outcome.message, await how.standIn());
    }
    if (outcome.kind === 'infeasible' && !fallback) throw new SchedulingFailure('InfeasibleProblemException', outcome.message);
    throw new SchedulingFailure(failureName, outcome.message);
  }
  return { model, schedule: outcome.schedule };
}

/** What storing a storage schedule wrote: the scheduler's source, the beliefs and the plan's money. */
interface StoredSchedule {
  source: { id: number };
  numBeliefs: number;
  money: ReturnType<typeof moneySeries>;
  currency: string | null;
}

/**
 * Stores a storage schedule in one transaction, after checking the owner's rights again: power,
 * state of charge and consumption/production beliefs per device, the site's power, and the
 * plan's money.
 */
async function storeStorageSchedule(db: Knex, sensors: JobSensors, job: SolvedStorageJob & { jobId: string }): Promise<StoredSchedule> {
  const { args, model, problem, schedule, beliefTimeMs } = job;
  const { spec } = args;
  // Read before the write transaction: on SQLite's single writer connection a read through `db`
  // inside it would wait for the connection the transaction holds.
  for (const id of outputSensorIds(spec)) await sensors(id);
  const money = moneySeries(
    problem,
    spec.devices.map((d, i) => ({ sensorId: d.sensorId, powerMw: schedule.devices[i].powerMw })),
  );
  const moneyAt = {
    startMs: spec.startMs,
    endMs: spec.startMs + problem.stepCount * spec.stepMs,
    stepMs: spec.stepMs,
    beliefTimeMs,
    currency: priceCurrency(spec.consumptionPrice),
  };
  const { source, numBeliefs } = await db.transaction(async (trx) => {
    // Rights may have changed while the solver ran.
    await assertOwnerMay(trx, args.principal, spec);
    const src = await getOrCreateSource(trx, {
      name: sourceNames[model],
      type: 'scheduler',
      model,
      version: schedulerVersions[model],
    });
    const at = { spec, beliefTimeMs, sourceId: src.id };
    const rows: BeliefInput[] = [];
    for (const [d, device] of spec.devices.entries()) {
      rows.push(...powerBeliefs({ ...at, sensor: await sensors(device.sensorId), powerMw: schedule.devices[d].powerMw }));
      if (device.socSensorId !== null) {
        const socSensor = await sensors(device.socSensorId);
        rows.push(...socBeliefs({ ...at, sensor: socSensor, socMwh: schedule.devices[d].socMwh, socMaxMwh: device.socMaxMwh }));
      }
      const outputs = { consumption: device.consumptionSensorId, production: device.productionSensorId };
      rows.push(...(await consumptionProductionBeliefs({ trx, at, sensors, outputs, powerMw: schedule.devices[d].powerMw })));
    }
    if (spec.aggregatePowerSensorId !== undefined) {
      const sensor = await sensors(spec.aggregatePowerSensorId);
      rows.push(...powerBeliefs({ ...at, sensor, powerMw: schedule.sitePowerMw }));
    }
    const siteOutputs = { consumption: spec.aggregateConsumptionSensorId, production: spec.aggregateProductionSensorId };
    rows.push(
      ...(await consumptionProductionBeliefs({ trx, at, sensors, outputs: siteOutputs, powerMw: schedule.sitePowerMw, signed: false })),
    );
    // A re-run with the same belief time replaces its own earlier result.
    await recordBeliefs(trx, rows, { allowOverwrite: true });
    if (spec.devices.length)
      await recordScheduleMoney(trx, { jobId: job.jobId, sensorId: spec.devices[0].sensorId, ...moneyAt, series: money });
    return { source: src, numBeliefs: rows.length };
  });
  return { source, numBeliefs, money, currency: moneyAt.currency };
}

/** The job's result summary: the schedule, its money, which constraints held, and every warning. */
async function presentStorageSchedule(
  job: SolvedStorageJob & { stored: StoredSchedule; warnings: JobWarning[]; timing_ms: Record<'read' | 'solve' | 'store', number> },
  sensors: JobSensors,
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
    // Where the job's time went: reading inputs, the worker thread, storing the result.
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
      ...job.warnings,
      ...unresolvedConstraints(constraints.unresolved, spec.stepMs),
    ],
  } satisfies JobResult;
}

async function runProcess({
  db,
  pool,
  sensors,
  spec,
  principal,
  beliefTimeMs,
}: {
  db: Knex;
  pool: WorkerPool;
  sensors: JobSensors;
  spec: ProcessJobSpec;
  principal: PrincipalRef;
  beliefTimeMs: number;
}): Promise<JobResult> {
  const warnings: JobWarning[] = [];
  const problem = await buildProcessProblem(spec, { db, sensors, beliefTimeMs, warnings });
  const outcome = await pool.run('processSchedule', problem).catch((err: unknown) => {
    throw new SchedulingFailure('ValueError', err instanceof Error ? err.message : String(err));
  });
  if (!outcome.ok) throw new SchedulingFailure('ValueError', outcome.message);
  const schedule = outcome.schedule;
  const sensor = await sensors(spec.sensorId);
  const { source, numBeliefs } = await db.transaction(async (trx) => {
    await assertOwnerMay(trx, principal, spec);
    const src = await getOrCreateSource(trx, {
      name: sourceNames.ProcessScheduler,
      type: 'scheduler',
      model: 'ProcessScheduler',
      version: '1',
    });
    const rows = powerBeliefs({ sensor, powerMw: schedule.powerMw, spec, beliefTimeMs, sourceId: src.id });
    await recordBeliefs(trx, rows, { allowOverwrite: true });
    return { source: src, numBeliefs: rows.length };
  });
  return {
    scheduler_info: { scheduler: 'ProcessScheduler' },
    data_source_id: source.id,
    start_ms: spec.startMs,
    end_ms: spec.endMs,
    step_ms: spec.stepMs,
    belief_time_ms: beliefTimeMs,
    total_cost: round6(schedule.totalCost),
    'num-beliefs': numBeliefs,
    devices: [{ sensor_id: spec.sensorId, power_mw: schedule.powerMw.map(round6) }],
    consumption_price: [...problem.consumptionPrice],
    currency: priceCurrency(spec.consumptionPrice) ?? undefined,
    warnings: [...startFloored(spec), ...warnings],
  } satisfies JobResult;
}

/** Every sensor a storage job writes to. */
function outputSensorIds(spec: StorageJobSpec): number[] {
  const perDevice = spec.devices.flatMap((d) => [d.sensorId, d.socSensorId, d.consumptionSensorId, d.productionSensorId]);
  const site = [spec.aggregatePowerSensorId, spec.aggregateConsumptionSensorId, spec.aggregateProductionSensorId];
  return [...perDevice, ...site].filter((id): id is number => typeof id === 'number');
}

/**
 * A power schedule on FlexMeasures 1.0 consumption/production output sensors (a device's
 * `consumption`/`production`, the site's `aggregate-…`): one of them alone gets the whole
 * schedule, both get its consumption and its production part. A device's sensors get their
 * field's `consumption_is_positive` (the trigger refused a contradicting one), so that
 * consumption is stored positive on the one, production on the other; the site's keep their
 * own convention, as 1.0 sets the attribute only on flex-model outputs (so an aggregate-consumption
 * sensor without it stores consumption negative).
 * @param signed whether to set the sensors' sign attributes (a device's outputs; the default).
 */
async function consumptionProductionBeliefs({
  trx,
  at,
  sensors,
  outputs,
  powerMw,
  signed = true,
}: {
  trx: Knex.Transaction;
  at: BeliefsAt;
  sensors: JobSensors;
  outputs: { consumption?: number; production?: number };
  powerMw: number[];
  signed?: boolean;
}): Promise<BeliefInput[]> {
  const both = outputs.consumption !== undefined && outputs.production !== undefined;
  const rows: BeliefInput[] = [];
  for (const [id, consumptionIsPositive, part] of [
    [outputs.consumption, true, (p: number) => (both ? Math.max(p, 0) : p)],
    [outputs.production, false, (p: number) => (both ? Math.min(p, 0) : p)],
  ] as const) {
    if (id === undefined) continue;
    const stored = await sensors(id);
    if (!signed) {
      rows.push(...powerBeliefs({ ...at, sensor: stored, powerMw: powerMw.map(part) }));
      continue;
    }
    const attributes = { ...stored.attributes, consumption_is_positive: consumptionIsPositive };
    if (stored.attributes.consumption_is_positive !== consumptionIsPositive)
      await updateSensor(trx, unrecorded('the sign convention of a schedule, stored with it'), stored, { attributes });
    rows.push(...powerBeliefs({ ...at, sensor: { ...stored, attributes }, powerMw: powerMw.map(part) }));
  }
  return rows;
}

/** Where and when a job's output beliefs go: the job's grid, its belief time, the scheduler's source. */
interface BeliefsAt {
  spec: StorageJobSpec | ProcessJobSpec;
  beliefTimeMs: number;
  sourceId: number;
}

/**
 * Power per step (MW, consumption positive) as beliefs of the sensor: in its unit, at its
 * resolution (coarser sensors get the mean of their steps, finer ones the step's value for each
 * of their events), with its sign convention.
 */
function powerBeliefs({
  sensor,
  powerMw,
  spec,
  beliefTimeMs,
  sourceId,
}: BeliefsAt & { sensor: SensorInContext; powerMw: number[] }): BeliefInput[] {
  const sensorId = sensor.id;
  const resolution = sensor.event_resolution_ms || spec.stepMs;
  const perEvent = Math.max(1, Math.round(resolution / spec.stepMs));
  const eventsPerStep = Math.max(1, Math.round(spec.stepMs / resolution));
  const c = conversion('MW', sensor.unit, resolution) ?? { scale: 1, offset: 0 };
  const sign = consumptionSign(sensor);
  const rows: BeliefInput[] = [];
  for (let i = 0; i + perEvent <= powerMw.length; i += perEvent) {
    const mean = powerMw.slice(i, i + perEvent).reduce((a, b) => a + b, 0) / perEvent;
    for (let k = 0; k < eventsPerStep; k++) {
      rows.push({
        sensorId,
        eventStartMs: spec.startMs + i * spec.stepMs + k * resolution,
        beliefTimeMs,
        sourceId,
        value: round6(sign * (mean * c.scale + c.offset)),
      });
    }
  }
  return rows;
}

/** State of charge at each step boundary, in the SoC sensor's unit (MWh, kWh or % of soc-max). */
function socBeliefs({
  sensor,
  socMwh,
  socMaxMwh,
  spec,
  beliefTimeMs,
  sourceId,
}: BeliefsAt & { sensor: SensorInContext; socMwh: number[]; socMaxMwh: number }): BeliefInput[] {
  const sensorId = sensor.id;
  const toUnit = (mwh: number) => {
    if (sensor.unit === '%') return (100 * mwh) / socMaxMwh;
    const c = conversion('MWh', sensor.unit, spec.stepMs);
    return c ? mwh * c.scale + c.offset : mwh;
  };
  return socMwh.map((v, j) => ({
    sensorId,
    eventStartMs: spec.startMs + j * spec.stepMs,
    beliefTimeMs,
    sourceId,
    value: round6(toUnit(v)),
  }));
}
