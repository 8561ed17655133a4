import type { DateTime } from 'luxon';
import { formatStart, storedInstantMs } from '../../domain/time.ts';
import { conversion, isEnergyUnit, isPowerUnit } from '../../domain/units.ts';
import { triggerUdiSchedule } from '../../commands/triggerSchedule.ts';
import { getSensor, type SensorInContext } from '../../store/sensors.ts';
import type { Knex } from 'knex';
import { getUdiEvent } from '../../store/udiEvents.ts';
import { assertFinished, fallbackOf, scheduleValues, settleBriefly } from '../scheduleResults.ts';
import { sensorNeeds } from '../load.ts';
import * as wire from '../../contracts/responses.ts';
import { messageBody, unplacedRoute, type PlacedLater } from '../../http/routes.ts';
import { parseEvent, type EventAddress } from './entityAddresses.ts';
import { expectType, readDateTime, readDuration, readMessage, readUnit, type Message } from './message.ts';
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

/** The device an event names; UNRECOGNIZED_UDI_EVENT (or `missing`) when it is not known. */
async function eventDevice(db: Knex, event: EventAddress, unknown: (sensorId: number) => Error): Promise<SensorInContext> {
  const sensor = await getSensor(db, event.sensorId);
  if (!sensor) throw unknown(event.sensorId);
  return sensor;
}

/** UDI events are for storage devices; checked once the caller may schedule the device. */
function checkDomain(sensor: SensorInContext): void {
  if (!STORAGE_TYPES.has(sensor.asset_type)) {
    throw legacyError(
      'INVALID_DOMAIN',
      `UDI events are for batteries and EV chargers; device ${sensor.id} is on an asset of type ${sensor.asset_type}.`,
    );
  }
}

/** Events of a device arrive in order: neither an earlier SoC datetime nor an event id already seen. */
function checkOrder(sensor: SensorInContext, event: EventAddress, datetime: DateTime): void {
  const lastDatetime = sensor.attributes.soc_datetime;
  const lastMs = storedInstantMs(lastDatetime);
  if (lastMs !== undefined && datetime.toMillis() < lastMs) {
    throw legacyError(
      'INVALID_DATETIME',
      `The state of charge at ${formatStart(datetime)} is older than the last one known (${String(lastDatetime)}).`,
    );
  }
  const lastId = sensor.attributes.soc_udi_event_id;
  if (typeof lastId === 'number' && event.eventId <= lastId) {
    throw legacyError('OUTDATED_UDI_EVENT', `UDI event ${event.eventId} is not newer than the last event of this device (${lastId}).`);
  }
}

/** Reads a UDI event: its address, and the state of charge with its unit and datetime. */
function readUdiEvent(msg: Message, v: LegacyVersion) {
  expectType(msg, 'PostUdiEventRequest');
  const incomplete = (part: string) => legacyError('INCOMPLETE_UDI_EVENT', `The UDI event lacks ${part}.`);
  const event = eventAddress(msg.event, () => incomplete('its event address'));
  checkEventType(v, event);
  const unit = readUnit(msg, isEnergyUnit, 'an energy unit such as kWh or MWh');
  const toMwh = conversion(unit, 'MWh', 0)!.scale;
  if (msg.datetime === undefined) throw incomplete('the datetime of its state of charge');
  const datetime = readDateTime(msg.datetime, 'datetime', 'INVALID_DATETIME')!;
  if (msg.value === undefined) throw incomplete('the value of its state of charge');
  const socMwh = readNumber(msg.value, 'state of charge') * toMwh;
  return { msg, event, toMwh, datetime, socMwh };
}

/**
 * A UDI event: the device's new state of charge (and, from 1.3 on, its targets and limits),
 * stored on the device (which the caller must be allowed to write to) and scheduled from.
 */
const postUdiEvent = (v: LegacyVersion): PlacedLater =>
  unplacedRoute({
    summary: 'Send a state-of-charge (UDI) event of a device',
    request: { json: messageBody((ctx) => readUdiEvent(readMessage(ctx), v)) },
    load: async ({ db, body }) => {
      const unknown = (id: number) => legacyError('UNRECOGNIZED_UDI_EVENT', `The UDI event names device ${id}, which is not known.`);
      return { device: sensorNeeds(await eventDevice(db, body.event, unknown), 'create-children') };
    },
    check: async ({ ctx, body, loaded: { device } }) => {
      const { msg, event, toMwh, datetime, socMwh } = body;
      checkDomain(device);
      checkOrder(device, event, datetime);
      const { config } = ctx.services;
      const flexModel: Record<string, unknown> = { 'soc-at-start': socMwh, 'soc-unit': 'MWh' };
      let prior: DateTime | undefined;
      if (atLeast(v, '1.3')) {
        if (event.eventType === 'soc-with-targets') {
          flexModel['soc-targets'] = readTargets(msg, datetime, toMwh, device.event_resolution_ms, config.planningHorizonMs);
        }
        if (msg.soc_min !== undefined) flexModel['soc-min'] = readNumber(msg.soc_min, 'soc_min') * toMwh;
        if (msg.soc_max !== undefined) flexModel['soc-max'] = readNumber(msg.soc_max, 'soc_max') * toMwh;
        if (msg.roundtrip_efficiency !== undefined)
          flexModel['roundtrip-efficiency'] = readNumber(msg.roundtrip_efficiency, 'roundtrip_efficiency');
        prior = readDateTime(msg.prior, 'prior', 'INVALID_DATETIME');
      }
      return { prior, flexModel };
    },
    command: async ({ ctx, context, principal, body, loaded: { device }, checked: { prior, flexModel } }) => {
      const { datetime, socMwh, event } = body;
      const trigger = { device, event, datetime: formatStart(datetime), socMwh, start: datetime, prior, flexModel };
      const job = await triggerUdiSchedule(context, principal, trigger, { reuseWithinS: context.config.jobCacheTtlS });
      await settleBriefly(ctx, job);
      return processed('PostUdiEventResponse');
    },
    response: { schema: wire.legacyAnswer },
  });

/** Reads a device message request: the event, and the window and unit of the answer. */
function readDeviceMessageRequest(msg: Message) {
  expectType(msg, 'GetDeviceMessageRequest');
  const event = eventAddress(msg.event, () => legacyError('UNRECOGNIZED_CONNECTION_GROUP', 'The message names no event.'));
  const durationMs = readDuration(msg.duration, 'duration') ?? DEFAULT_MESSAGE_MS;
  const from = readDateTime(msg.start, 'start', 'INVALID_PERIOD');
  const unit = msg.unit === undefined ? 'MW' : readUnit(msg, isPowerUnit, 'a power unit such as MW or kW');
  return { event: msg.event, address: event, durationMs, from, unit };
}

/** A device message: the schedule of the job a UDI event of a device (that the caller may read) triggered. */
const getDeviceMessage = (v: LegacyVersion): PlacedLater =>
  unplacedRoute({
    summary: 'Download the schedule for a UDI event',
    request: { json: messageBody((ctx) => readDeviceMessageRequest(readMessage(ctx))) },
    load: async ({ db, body }) => {
      const unknown = (id: number) => legacyError('UNRECOGNIZED_CONNECTION_GROUP', `The event names device ${id}, which is not known.`);
      return { device: sensorNeeds(await eventDevice(db, body.address, unknown), 'read') };
    },
    check: ({ body, loaded: { device } }) => {
      checkEventType(v, body.address);
      const c = conversion(device.unit, body.unit, device.event_resolution_ms);
      if (!c)
        throw legacyError('INVALID_UNIT', `Device ${device.id} is scheduled in ${device.unit}, which does not convert to ${body.unit}.`);
      return c;
    },
    command: async ({ ctx, body, loaded: { device }, checked: c }) => {
      const { event, address, durationMs, from, unit } = body;
      const unknown = () =>
        legacyError(
          'UNRECOGNIZED_UDI_EVENT',
          `The UDI event (id = ${address.eventId}, type = ${address.eventType}) of device ${device.id} is not known.`,
        );
      const udi = await getUdiEvent(ctx.services.db, device.id, address.eventId);
      if (!udi || udi.eventType !== address.eventType) throw unknown();
      const { jobs } = ctx.services;
      let job = await jobs.get(udi.jobId);
      if (job?.queue !== 'scheduling') throw unknown();
      if (job.status === 'failed' && job.fallbackJobId) job = await fallbackOf(jobs, job.fallbackJobId);
      assertFinished(job);
      const schedule = await scheduleValues(ctx, device, job, durationMs, from?.toMillis());
      return {
        event,
        values: schedule.values.map((x) => (x === null ? null : Math.round((x * c.scale + c.offset) * 1e6) / 1e6)),
        start: schedule.start,
        duration: schedule.duration,
        unit,
        ...processed('GetDeviceMessageResponse'),
      };
    },
    response: { schema: wire.legacyAnswer },
  });

/** The UDI endpoints, by route name. */
export const udiEndpoints = { postUdiEvent, getDeviceMessage };
