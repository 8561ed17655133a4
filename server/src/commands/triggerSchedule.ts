import type { EnqueueOptions, JobRecord } from '../jobs/jobQueue.ts';
import { cacheKeyOf } from '../jobs/jobTable.ts';
import { principalRef, type Principal } from '../policies/principal.ts';
import { attributeReferences, authorizeReferences, flexReferences, refuseForeign } from '../policies/references.ts';
import { resolveSensorJob, triggerReferences, type TriggerInput } from '../scheduling/flexConfig.ts';
import type { JobSpec } from '../contracts/jobSpec.ts';
import type { SchedulingJobArgs } from '../contracts/jobs.ts';
import { jobReferences } from '../scheduling/jobReferences.ts';
import { readSensorState } from '../scheduling/sensorState.ts';
import { deviceFlexModel, inheritedFlexContext } from '../scheduling/storedConfig.ts';
import type { Asset } from '../store/assets.ts';
import { windowVersions } from '../store/beliefs.ts';
import type { SensorInContext, SensorsRead } from '../store/sensors.ts';
import type { DateTime } from 'luxon';
import { fieldError, fieldTree, unprocessable } from '../errors.ts';
import { resolveStorageJob } from '../scheduling/flexConfig.ts';
import { storedDevices } from '../scheduling/storedConfig.ts';
import { withRecurringTargets } from '../scheduling/recurringTargets.ts';
import { unrecorded } from '../store/auditLog.ts';
import { descendantIds } from '../store/assets.ts';
import { RowReads } from '../store/rowReads.ts';
import { updateSensor } from '../store/write/sensors.ts';
import { recordUdiEvent } from '../store/write/udiEvents.ts';
import type { CommandContext, Uses } from './context.ts';

/**
 * Triggering a schedule, the one sequence every caller uses (v3.0 and legacy routes, automations):
 * the principal (a user, or an automation acting for its maker with the maker's current rights)
 * and the asset's account must both be able to use every sensor involved; the job is queued in
 * the principal's name for the asset's account. No HTTP context: errors are the API's (422, 403).
 */

/** What queueing a job uses: the reading connections (it writes nothing itself), the settings, the queue. */
export type Queueing = Pick<CommandContext, 'reader' | 'config' | 'jobs' | 'clock'>;

/**
 * How the job is queued: its results sensor, and whether a recent job of identical arguments and
 * inputs may be reused; `anyBeliefTime`: also one made at another belief time (and requested start
 * on the same grid point) from the same inputs, as an automation due every minute finds the job of
 * its run a minute ago while nothing it reads has changed.
 */
export type QueueOptions = Pick<EnqueueOptions, 'reuseWithinS' | 'force'> & {
  sensorId: number;
  anyBeliefTime?: boolean;
  /** The unit and resolution of sensors the job reads, as the caller has just read them (not read again). */
  sensors?: SensorsRead;
};

/** A resolved trigger, ready to queue: the job spec (its state of charge not yet read), the asset, the request as named. */
export interface ResolvedSchedule {
  spec: JobSpec;
  asset: Asset;
  request: { flexModel?: unknown; flexContext?: unknown };
}

/**
 * Authorizes a resolved job for the principal and the asset's account, reads what it needs of the
 * (now authorized) sensors, and queues it.
 * @param rows the reads of the resolution that made the job, if any (see `prepareSchedule`).
 */
export async function queueSchedule(
  context: Queueing,
  principal: Principal,
  job: ResolvedSchedule,
  options: QueueOptions,
  rows?: RowReads,
): Promise<JobRecord> {
  return (await prepareSchedule(context, principal, job, options, rows)).queue();
}

/**
 * What `queueSchedule` does before it queues: authorizes the job for the principal and the
 * asset's account, then reads what it needs of the (now authorized) sensors.
 * @param rows the reads of the resolution that made the job: the sensors it read are authorized
 *   as read then (within the same trigger or run), not read again.
 * @returns the key the job is found by (equal keys, the job reads the same) and how to queue it.
 */
export async function prepareSchedule(
  context: Queueing,
  principal: Principal,
  job: ResolvedSchedule,
  options: QueueOptions,
  rows = new RowReads(context.reader),
): Promise<{ key: string; queue: () => Promise<JobRecord> }> {
  const { spec, asset, request } = job;
  await authorizeReferences(context.reader, principal, triggerReferences(spec, asset, request), [], asset.account_id, rows);
  return readSchedule(context, principal, job, options, rows);
}

/**
 * `prepareSchedule` for a job authorized already: reads the state of charge and the inputs'
 * figures now. Only for a job whose rights are known unchanged since they were checked (an
 * automation's, see `unchangedSchedule.ts`).
 * @param rows the reads of the piece of work the job is queued for (its sensors read once).
 */
export async function readSchedule(
  context: Queueing,
  principal: Principal,
  job: ResolvedSchedule,
  options: QueueOptions,
  rows = new RowReads(context.reader),
): Promise<{ key: string; queue: () => Promise<JobRecord> }> {
  const { spec, asset } = job;
  const { anyBeliefTime, sensors, ...queueing } = options;
  const args: SchedulingJobArgs = {
    spec: await readSensorState(rows, spec, spec.priorMs ?? context.clock.now(), context.config.socMaxAgeSteps, sensors),
    principal: principalRef(principal),
    inputs: await inputVersions(rows, spec, sensors),
  };
  // The state of charge and every input's figures are read at the belief time: equal, the job reads the same.
  const keyArgs = anyBeliefTime ? { ...args, spec: { ...args.spec, priorMs: undefined, requestedStartMs: undefined } } : args;
  const key = cacheKeyOf('scheduling', keyArgs);
  return { key, queue: () => context.jobs.enqueue('scheduling', args, { accountId: asset.account_id, ...queueing, cacheKey: key }) };
}

/**
 * What the job's input sensors hold in its window now: part of the job's arguments, so that a
 * trigger finds an earlier job only while the prices, forecasts and other inputs it read are
 * unchanged (the state of charge it starts from is in the spec itself).
 */
async function inputVersions(rows: RowReads, spec: JobSpec, sensors?: SensorsRead) {
  const inputs = jobReferences(spec).flatMap((r) => (r.use === 'read' ? [r.id] : []));
  const window = { startMs: spec.startMs, endMs: spec.endMs, beliefsBeforeMs: spec.priorMs ?? undefined };
  return windowVersions(rows.db, inputs, window, sensors ?? (await rows.sensors(inputs)));
}

/**
 * Schedules one sensor from the request's flex configuration over what its asset (and the
 * asset's ancestors) store: refuses foreign sensors (403), also those its attributes name, before
 * the resolution reads them (422).
 */
export async function triggerSensorSchedule(
  context: Queueing,
  principal: Principal,
  input: SensorTrigger,
  options: Omit<QueueOptions, 'sensorId'>,
): Promise<JobRecord> {
  const rows = new RowReads(context.reader);
  const job = await resolveSensorTrigger(context, principal, input, rows);
  return queueSchedule(context, principal, job, { ...options, sensorId: input.sensor.id }, rows);
}

/** A trigger of one sensor: the window, the sensor, the flex-model and flex-context as named. */
export type SensorTrigger = Omit<TriggerInput, 'flexContext'> & {
  sensor: SensorInContext;
  flexModel: Record<string, unknown>;
  flexContext: Record<string, unknown>;
};

/**
 * The resolution of `triggerSensorSchedule`, without queueing.
 * @param rows the trigger's reads, which its queueing takes on (the sensor as the caller read it).
 */
export async function resolveSensorTrigger(
  context: Queueing,
  principal: Principal,
  input: SensorTrigger,
  rows: RowReads,
): Promise<ResolvedSchedule> {
  const { config } = context;
  const { sensor, ...trigger } = input;
  rows.know({ sensor });
  const asset = (await rows.asset(sensor.generic_asset_id))!;
  const flexContext = await inheritedFlexContext(rows, asset, input.flexContext);
  const flexModel = await deviceFlexModel(rows, sensor, input.flexModel, asset);
  // Attributes stored before they were authorized when written must not tell a foreign unit either.
  const attributeRefs = [...attributeReferences(sensor.attributes), ...attributeReferences(asset.attributes)];
  await refuseForeign(rows, principal, [...flexReferences(flexModel), ...flexReferences(flexContext), ...attributeRefs], asset.account_id);
  const spec = await resolveSensorJob(rows, config, { input: { ...trigger, flexContext }, sensor, asset, flexModel });
  return { spec, asset, request: { flexModel, flexContext } };
}

/** An asset's trigger as asked: the window, the devices named (power sensors with their flex-models), the flex-context. */
export type AssetTrigger = Omit<TriggerInput, 'flexContext'> & {
  devices: Record<string, unknown>[];
  flexContext: Record<string, unknown>;
};

/** The devices a trigger names, each on the asset or anywhere below it (422 under the entry's `sensor` otherwise). */
async function namedDevices(rows: RowReads, asset: Asset, entries: Record<string, unknown>[]) {
  const tree = new Set(await descendantIds(rows.db, asset.id));
  const devices: { sensor: SensorInContext; flexModel: Record<string, unknown> }[] = [];
  for (const [i, entry] of entries.entries()) {
    const { sensor: sensorId, ...flexModel } = entry;
    // Messages sit under the entry's `sensor`, as marshmallow nests list items.
    const entryError = (message: string) => unprocessable('json', fieldTree(['flex-model', i, 'sensor'], [message]));
    if (sensorId === undefined) throw entryError('Missing data for required field.');
    if (!Number.isSafeInteger(sensorId)) throw entryError('Not a valid integer.');
    const sensor = await rows.sensor(sensorId as number);
    if (!sensor) throw entryError(`No sensor found with id ${String(sensorId)}.`);
    if (!tree.has(sensor.generic_asset_id)) throw entryError(`Sensor ${sensor.id} does not belong to asset ${asset.id} or one below it.`);
    devices.push({ sensor, flexModel: await deviceFlexModel(rows, sensor, flexModel) });
  }
  return devices;
}

/**
 * Schedules the devices of an asset together: those the trigger names, and those below the asset
 * with a stored flex-model. Refuses foreign sensors (403) before the resolution reads them (422).
 * @returns the job, written to the first device's sensor.
 */
export async function triggerAssetSchedule(
  context: Queueing,
  principal: Principal,
  input: { asset: Asset; trigger: AssetTrigger },
  options: Omit<QueueOptions, 'sensorId'>,
): Promise<JobRecord> {
  const { reader: db, config } = context;
  const { asset, trigger } = input;
  const { devices: entries, flexContext: asked, ...window } = trigger;
  const rows = new RowReads(db).know({ asset });
  const devices = await namedDevices(rows, asset, entries);
  const unnamed = await storedDevices(rows, asset, new Set(devices.map((d) => d.sensor.generic_asset_id)));
  if (typeof unnamed === 'string') throw fieldError('json', 'flex-model', unnamed);
  devices.push(...unnamed);
  // Each car's recurring targets in the window, as a sensor trigger and an automation plan for them.
  for (const [i, d] of devices.entries()) {
    const at = { window, sensor: d.sensor, at: ['flex-model', i] };
    d.flexModel = await withRecurringTargets(db, config, at, d.flexModel, d.flexModel['soc-targets']);
  }
  if (!devices.length) {
    throw fieldError(
      'json',
      'flex-model',
      'No flexible device: name a power sensor in the flex-model, or store a flex-model on the asset or one below it.',
    );
  }
  const flexContext = await inheritedFlexContext(rows, asset, asked);
  const flexModels = devices.map((d) => d.flexModel);
  await refuseForeign(rows, principal, [...flexReferences(flexModels), ...flexReferences(flexContext)], asset.account_id);
  const spec = await resolveStorageJob(rows, config, { input: { ...window, flexContext }, devices, asset });
  const flexModel = devices.map((d) => ({ sensor: d.sensor.id, ...d.flexModel }));
  return queueSchedule(
    context,
    principal,
    { spec, asset, request: { flexModel, flexContext } },
    { ...options, sensorId: devices[0].sensor.id },
    rows,
  );
}

/** A device's state-of-charge (UDI) event of the legacy API, with the flex-model it asks for. */
export interface UdiTrigger {
  device: SensorInContext;
  event: { eventId: number; eventType: string };
  /** The time of the state of charge, as stored on the device. */
  datetime: string;
  socMwh: number;
  prior?: DateTime;
  start: DateTime;
  flexModel: Record<string, unknown>;
}

/**
 * Schedules a device from its UDI event: queues the job, then stores the device's new state of
 * charge and the event pointing to the job in one write (the job runs on its own).
 * @returns the job.
 */
export async function triggerUdiSchedule(
  context: Queueing & Uses,
  principal: Principal,
  input: UdiTrigger,
  options: Omit<QueueOptions, 'sensorId'>,
): Promise<JobRecord> {
  const { device, event, flexModel } = input;
  const rows = new RowReads(context.reader).know({ sensor: device });
  const asset = (await rows.asset(device.generic_asset_id))!;
  // Flex-model problems (no SoC maximum known, say) answer 422 here, before anything is stored.
  const spec = await resolveStorageJob(rows, context.config, {
    input: { start: input.start, prior: input.prior, flexContext: {} },
    devices: [{ sensor: device, flexModel }],
    asset,
  });
  const job = await queueSchedule(context, principal, { spec, asset, request: { flexModel } }, { ...options, sensorId: device.id }, rows);
  await context.db.transaction(async (trx) => {
    const soc = { soc_datetime: input.datetime, soc_in_mwh: input.socMwh, soc_udi_event_id: event.eventId };
    // A measurement kept with the device, as frequent as its data: not an entry of the asset's log.
    await updateSensor(trx, unrecorded('a device state of charge'), device, { attributes: { ...device.attributes, ...soc } });
    await recordUdiEvent(trx, { sensorId: device.id, eventId: event.eventId, eventType: event.eventType, jobId: job.id });
  });
  return job;
}
