import type { DateTime } from 'luxon';
import { formatStart } from '../../domain/time.ts';
import { conversion, isEnergyUnit, isPowerUnit } from '../../domain/units.ts';
import { authorize } from '../../policies/access.ts';
import { authorizeReferences } from '../../policies/references.ts';
import { resolveStorageJob, triggerReferences } from '../../scheduling/flexConfig.ts';
import type { SchedulingJobArgs } from '../../scheduling/runJob.ts';
import { getAsset } from '../../store/assets.ts';
import { getSensor, updateSensor, type SensorInContext } from '../../store/sensors.ts';
import { getUdiEvent, recordUdiEvent } from '../../store/udiEvents.ts';
import { assertFinished, fallbackOf, scheduleValues, settleBriefly } from '../scheduleResults.ts';
import { ownedAccess } from '../load.ts';
import { parseEvent, type EventAddress } from './entityAddresses.ts';
import { expectType, readDateTime, readDuration, readMessage, readUnit, type LegacyCall, type Message } from './message.ts';
import { legacyError, processed, shown } from './responses.ts';
import { atLeast, type LegacyVersion } from './versions.ts';

/**
 * UDI events and device messages. A UDI event reports a device's state of charge (with targets
 * from version 1.3 on); it is stored as the device's SoC (sensor attributes `soc_in_mwh`,
 * `soc_datetime`, `soc_udi_event_id`) and triggers the storage scheduler from the SoC's
 * datetime over the planning horizon. A device message answers with the schedule of the job
 * that the event triggered.
 */

const STORAGE_TYPES = new Set(['battery', 'one-way_evse', 'two-way_evse']);
const DEFAULT_MESSAGE_MS = 6 * 3600_000;

const eventTypes = (v: LegacyVersion) => (atLeast(v, '1.3') ? ['soc', 'soc-with-targets'] : ['soc']);

/** Reads the event address; INVALID_DOMAIN when malformed. */
function eventAddress(text: unknown, missing: () => Error): EventAddress {
  if (typeof text !== 'string' || !text) throw missing();
  const event = parseEvent(text);
  if ('error' in event) throw legacyError('INVALID_DOMAIN', event.error);
  return event;
}

function checkEventType(v: LegacyVersion, event: EventAddress): void {
  if (!eventTypes(v).includes(event.eventType)) {
    throw legacyError(
      'UNRECOGNIZED_UDI_EVENT',
      `The UDI event type '${event.eventType}' is not known to version ${v.version}; use ${eventTypes(v).join(' or ')}.`,
    );
  }
}

/** A number of a UDI event (a SoC, a limit, an efficiency); PTUS_INCOMPLETE when it is not one. */
function readNumber(value: unknown, what: string): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw legacyError('PTUS_INCOMPLETE', `The ${what} ${shown(value)} is not a number.`);
  return n;
}

/** The SoC targets of a `soc-with-targets` event, checked against the schedule's steps. */
function readTargets(msg: Message, start: DateTime, toMwh: number, stepMs: number, horizonMs: number) {
  if (!Array.isArray(msg.targets) || !msg.targets.length) {
    throw legacyError('INCOMPLETE_UDI_EVENT', 'A soc-with-targets event needs a list of targets, each with a value and a datetime.');
  }
  return msg.targets.map((target: unknown, i) => {
    const t = target && typeof target === 'object' ? (target as Message) : {};
    if (t.value === undefined) throw legacyError('PTUS_INCOMPLETE', `Target ${i} has no value.`);
    const value = readNumber(t.value, `value of target ${i}`) * toMwh;
    if (t.datetime === undefined) throw legacyError('INVALID_DATETIME', `Target ${i} has no datetime.`);
    const at = readDateTime(t.datetime, `datetime of target ${i}`, 'INVALID_DATETIME')!;
    const offsetMs = at.toMillis() - start.toMillis();
    if (offsetMs <= 0 || offsetMs > horizonMs) {
      throw legacyError(
        'INVALID_DATETIME',
        `Target ${i} at ${formatStart(at)} should lie after the state of charge and within the planning horizon of ${horizonMs / 3600_000} hours.`,
      );
    }
    if (stepMs > 0 && offsetMs % stepMs !== 0) {
      throw legacyError(
        'PTUS_INCOMPLETE',
        `Target ${i} at ${formatStart(at)} is not at the end of a ${stepMs / 60_000}-minute step of the device.`,
      );
    }
    return { value, datetime: formatStart(at) };
  });
}

/** The device of an event, which the caller may schedule. */
async function eventDevice({ db, user }: LegacyCall, event: EventAddress): Promise<SensorInContext> {
  const sensor = await getSensor(db, event.sensorId);
  if (!sensor) throw legacyError('UNRECOGNIZED_UDI_EVENT', `The UDI event names device ${event.sensorId}, which is not known.`);
  authorize(user, 'create-children', await ownedAccess(db, 'sensor', sensor.account_id));
  if (!STORAGE_TYPES.has(sensor.asset_type)) {
    throw legacyError(
      'INVALID_DOMAIN',
      `UDI events are for batteries and EV chargers; device ${sensor.id} is on an asset of type ${sensor.asset_type}.`,
    );
  }
  return sensor;
}

/** Events of a device arrive in order: neither an earlier SoC datetime nor an event id already seen. */
function checkOrder(sensor: SensorInContext, event: EventAddress, datetime: DateTime): void {
  const lastDatetime = sensor.attributes.soc_datetime;
  if (typeof lastDatetime === 'string' && datetime.toMillis() < Date.parse(lastDatetime)) {
    throw legacyError(
      'INVALID_DATETIME',
      `The state of charge at ${formatStart(datetime)} is older than the last one known (${lastDatetime}).`,
    );
  }
  const lastId = sensor.attributes.soc_udi_event_id;
  if (typeof lastId === 'number' && event.eventId <= lastId) {
    throw legacyError('OUTDATED_UDI_EVENT', `UDI event ${event.eventId} is not newer than the last event of this device (${lastId}).`);
  }
}

async function postUdiEvent(call: LegacyCall, v: LegacyVersion) {
  const { ctx, user } = call;
  const msg = readMessage(ctx);
  expectType(msg, 'PostUdiEventRequest');
  const incomplete = (part: string) => () => legacyError('INCOMPLETE_UDI_EVENT', `The UDI event lacks ${part}.`);
  const event = eventAddress(msg.event, incomplete('its event address'));
  checkEventType(v, event);
  const unit = readUnit(msg, isEnergyUnit, 'an energy unit such as kWh or MWh');
  const toMwh = conversion(unit, 'MWh', 0)!.scale;
  if (msg.datetime === undefined) throw incomplete('the datetime of its state of charge')();
  const datetime = readDateTime(msg.datetime, 'datetime', 'INVALID_DATETIME')!;
  if (msg.value === undefined) throw incomplete('the value of its state of charge')();
  const socMwh = readNumber(msg.value, 'state of charge') * toMwh;
  const sensor = await eventDevice(call, event);
  checkOrder(sensor, event, datetime);

  const { db, config, jobs } = ctx.services;
  const flexModel: Record<string, unknown> = { 'soc-at-start': socMwh, 'soc-unit': 'MWh' };
  let prior: DateTime | undefined;
  if (atLeast(v, '1.3')) {
    if (event.eventType === 'soc-with-targets') {
      flexModel['soc-targets'] = readTargets(msg, datetime, toMwh, sensor.event_resolution_ms, config.planningHorizonMs);
    }
    if (msg.soc_min !== undefined) flexModel['soc-min'] = readNumber(msg.soc_min, 'soc_min') * toMwh;
    if (msg.soc_max !== undefined) flexModel['soc-max'] = readNumber(msg.soc_max, 'soc_max') * toMwh;
    if (msg.roundtrip_efficiency !== undefined)
      flexModel['roundtrip-efficiency'] = readNumber(msg.roundtrip_efficiency, 'roundtrip_efficiency');
    prior = readDateTime(msg.prior, 'prior', 'INVALID_DATETIME');
  }
  const asset = (await getAsset(db, sensor.generic_asset_id))!;
  // Flex-model problems (no SoC maximum known, say) answer 422 here, before anything is stored.
  const spec = await resolveStorageJob(db, config, { start: datetime, prior, flexContext: {} }, [{ sensor, flexModel }], asset);
  await authorizeReferences(db, user, triggerReferences(spec, asset, { flexModel }));
  const job = await jobs.enqueue('scheduling', { spec, ownerId: user.id } satisfies SchedulingJobArgs, {
    accountId: sensor.account_id,
    sensorId: sensor.id,
    reuseWithinS: config.jobCacheTtlS,
  });
  await db.transaction(async (trx) => {
    const soc = { soc_datetime: formatStart(datetime), soc_in_mwh: socMwh, soc_udi_event_id: event.eventId };
    await updateSensor(trx, sensor.id, { attributes: { ...sensor.attributes, ...soc } });
    await recordUdiEvent(trx, { sensorId: sensor.id, eventId: event.eventId, eventType: event.eventType, jobId: job.id });
  });
  await settleBriefly(ctx, job);
  return processed('PostUdiEventResponse');
}

async function getDeviceMessage({ ctx, user }: LegacyCall, v: LegacyVersion) {
  const msg = readMessage(ctx);
  expectType(msg, 'GetDeviceMessageRequest');
  const event = eventAddress(msg.event, () => legacyError('UNRECOGNIZED_CONNECTION_GROUP', 'The message names no event.'));
  const durationMs = readDuration(msg.duration, 'duration') ?? DEFAULT_MESSAGE_MS;
  const from = readDateTime(msg.start, 'start', 'INVALID_PERIOD');
  const unit = msg.unit === undefined ? 'MW' : readUnit(msg, isPowerUnit, 'a power unit such as MW or kW');
  const sensor = await getSensor(ctx.services.db, event.sensorId);
  if (!sensor) throw legacyError('UNRECOGNIZED_CONNECTION_GROUP', `The event names device ${event.sensorId}, which is not known.`);
  authorize(user, 'read', await ownedAccess(ctx.services.db, 'sensor', sensor.account_id));
  checkEventType(v, event);
  const c = conversion(sensor.unit, unit, sensor.event_resolution_ms);
  if (!c) throw legacyError('INVALID_UNIT', `Device ${sensor.id} is scheduled in ${sensor.unit}, which does not convert to ${unit}.`);

  const { jobs } = ctx.services;
  const unknown = () =>
    legacyError(
      'UNRECOGNIZED_UDI_EVENT',
      `The UDI event (id = ${event.eventId}, type = ${event.eventType}) of device ${sensor.id} is not known.`,
    );
  const udi = await getUdiEvent(ctx.services.db, sensor.id, event.eventId);
  if (!udi || udi.eventType !== event.eventType) throw unknown();
  let job = await jobs.get(udi.jobId);
  if (!job) throw unknown();
  if (job.status === 'failed' && job.fallbackJobId) job = await fallbackOf(jobs, job.fallbackJobId);
  assertFinished(job);
  const schedule = await scheduleValues(ctx, sensor, job, durationMs, from?.toMillis());
  return {
    event: msg.event,
    values: schedule.values.map((x) => (x === null ? null : Math.round((x * c.scale + c.offset) * 1e6) / 1e6)),
    start: schedule.start,
    duration: schedule.duration,
    unit,
    ...processed('GetDeviceMessageResponse'),
  };
}

/** The UDI endpoints, by route name. */
export const udiEndpoints = { postUdiEvent, getDeviceMessage };
