import type { Knex } from 'knex';
import type { PrincipalRef } from '../../contracts/jobs.ts';
import type { ProcessJobSpec, StorageJobSpec } from '../../contracts/jobSpec.ts';
import { type BeliefInput } from '../../store/beliefs.ts';
import { recordBeliefs } from '../../store/write/beliefs.ts';
import { recordScheduleMoney } from '../../store/write/scheduleMoney.ts';
import { getOrCreateSource } from '../../store/write/sources.ts';
import type { ProcessSchedule } from '../../../../worker/src/tasks.ts';
import type { JobSensors } from '../buildProblem.ts';
import { moneySeries, priceCurrency } from '../money.ts';
import type { SolvedStorageJob } from './choose.ts';
import { consumptionProductionBeliefs, powerBeliefs, socBeliefs } from './planBeliefs.ts';
import { assertOwnerMay } from './rights.ts';

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

const schedulerSource = (trx: Knex.Transaction, model: keyof typeof sourceNames) =>
  getOrCreateSource(trx, { name: sourceNames[model], type: 'scheduler', model, version: schedulerVersions[model] });

/** What storing a schedule wrote: the scheduler's source and the beliefs (and a storage plan's money). */
export interface StoredSchedule {
  source: { id: number };
  numBeliefs: number;
}

export interface StoredStorageSchedule extends StoredSchedule {
  money: ReturnType<typeof moneySeries>;
  currency: string | null;
}

/** Every sensor a storage job writes to. */
function outputSensorIds(spec: StorageJobSpec): number[] {
  const perDevice = spec.devices.flatMap((d) => [d.sensorId, d.socSensorId, d.consumptionSensorId, d.productionSensorId]);
  const site = [spec.aggregatePowerSensorId, spec.aggregateConsumptionSensorId, spec.aggregateProductionSensorId];
  return [...perDevice, ...site].filter((id): id is number => typeof id === 'number');
}

/** Every belief of a storage schedule: power, state of charge and consumption/production per device, and the site's power. */
async function storageBeliefs(trx: Knex.Transaction, sensors: JobSensors, job: SolvedStorageJob, sourceId: number): Promise<BeliefInput[]> {
  const { spec } = job.args;
  const { schedule } = job;
  const at = { spec, beliefTimeMs: job.beliefTimeMs, sourceId };
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
  return rows;
}

/**
 * Stores a storage schedule in one transaction, after checking the owner's rights again: power,
 * state of charge and consumption/production beliefs per device, the site's power, and the
 * plan's money.
 */
export async function storeStorageSchedule(
  db: Knex,
  sensors: JobSensors,
  job: SolvedStorageJob & { jobId: string },
): Promise<StoredStorageSchedule> {
  const { args, model, problem, schedule, beliefTimeMs } = job;
  const { spec } = args;
  // Read before the write transaction: on SQLite's single writer connection a read through `db`
  // inside it would wait for the connection the transaction holds.
  const outputs = outputSensorIds(spec);
  await sensors.load(outputs);
  const resolutions = new Map(await Promise.all(outputs.map(async (id) => [id, (await sensors(id)).event_resolution_ms] as const)));
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
    fallback: model === 'StorageFallbackScheduler',
  };
  const { source, numBeliefs } = await db.transaction(async (trx) => {
    // Rights may have changed while the solver ran.
    await assertOwnerMay(trx, args.principal, spec);
    const src = await schedulerSource(trx, model);
    const rows = await storageBeliefs(trx, sensors, job, src.id);
    // A re-run with the same belief time replaces its own earlier result.
    // The resolutions as read for the job: the owner check above found each sensor still there.
    await recordBeliefs(trx, rows, { allowOverwrite: true, resolutions });
    if (spec.devices.length)
      await recordScheduleMoney(trx, { jobId: job.jobId, sensorId: spec.devices[0].sensorId, ...moneyAt, series: money });
    return { source: src, numBeliefs: rows.length };
  });
  return { source, numBeliefs, money, currency: moneyAt.currency };
}

/** Stores a process schedule's power in one transaction, after checking the owner's rights again. */
export async function storeProcessSchedule(
  db: Knex,
  sensors: JobSensors,
  job: { spec: ProcessJobSpec; principal: PrincipalRef; schedule: ProcessSchedule; beliefTimeMs: number },
): Promise<StoredSchedule> {
  const { spec, schedule, beliefTimeMs } = job;
  const sensor = await sensors(spec.sensorId);
  return db.transaction(async (trx) => {
    await assertOwnerMay(trx, job.principal, spec);
    const src = await schedulerSource(trx, 'ProcessScheduler');
    const rows = powerBeliefs({ sensor, powerMw: schedule.powerMw, spec, beliefTimeMs, sourceId: src.id });
    await recordBeliefs(trx, rows, { allowOverwrite: true });
    return { source: src, numBeliefs: rows.length };
  });
}
