import { readSensorData } from '../../commands/readSensorData.ts';
import type { SensorUpload } from '../../commands/saveSensorData.ts';
import { evenlySpacedEvents, unitMismatch, type Problems, type UploadEvent } from '../../domain/sensorData.ts';
import { formatDurationHours, formatStart } from '../../domain/time.ts';
import { isEnergyPriceUnit, isPowerUnit } from '../../domain/units.ts';
import type { AppContext } from '../../http/context.ts';
import { authorize } from '../../policies/access.ts';
import { consumptionSign } from '../../scheduling/buildProblem.ts';
import type { SensorInContext } from '../../store/sensors.ts';
import { listSources } from '../../store/sources.ts';
import { storeUploads } from '../sensorUploads.ts';
import { ownedAccess } from '../load.ts';
import { connectionSensor, marketSensor, weatherSensor } from './lookup.ts';
import {
  expectType,
  readConnections,
  readDateTime,
  readDuration,
  readHorizon,
  readMessage,
  readPeriod,
  readUnit,
  readUploadGroups,
  readUploadTiming,
  type LegacyCall,
} from './message.ts';
import { legacyError, processed, type LegacyErrorName } from './responses.ts';
import { atLeast, type LegacyVersion } from './versions.ts';

/**
 * Meter data, prognoses, prices and weather data: uploads of value groups and downloads of a
 * connection's values, over the same belief store as v3.0. Connections follow the USEF sign
 * convention (consumption positive), so their values cross into storage multiplied by the
 * sensor's consumption sign, as schedules do.
 */

interface UploadKind {
  request: string;
  response: string;
  /** The singular name of the addresses in the message. */
  key: 'connection' | 'market' | 'sensor';
  missing: LegacyErrorName;
  resolve: (call: LegacyCall, text: string) => Promise<SensorInContext>;
  accepts: (unit: string) => boolean;
  expected: string;
  /** Values follow the USEF sign convention (connections). */
  usef: boolean;
  /** Stated belief timing must lie after (meter data) or before (prognoses) each event's end. */
  knownWhen?: 'after' | 'before';
}

const powerUnit = { accepts: isPowerUnit, expected: 'a power unit such as MW or kW' };

const uploadKinds = {
  postMeterData: {
    request: 'PostMeterDataRequest',
    response: 'PostMeterDataResponse',
    key: 'connection',
    missing: 'UNRECOGNIZED_CONNECTION_GROUP',
    resolve: connectionSensor,
    ...powerUnit,
    usef: true,
    knownWhen: 'after',
  },
  postPrognosis: {
    request: 'PostPrognosisRequest',
    response: 'PostPrognosisResponse',
    key: 'connection',
    missing: 'UNRECOGNIZED_CONNECTION_GROUP',
    resolve: connectionSensor,
    ...powerUnit,
    usef: true,
    knownWhen: 'before',
  },
  postPriceData: {
    request: 'PostPriceDataRequest',
    response: 'PostPriceDataResponse',
    key: 'market',
    missing: 'UNRECOGNIZED_MARKET',
    resolve: marketSensor,
    accepts: isEnergyPriceUnit,
    expected: 'a price per unit of energy such as EUR/MWh',
    usef: false,
  },
  postWeatherData: {
    request: 'PostWeatherDataRequest',
    response: 'PostWeatherDataResponse',
    key: 'sensor',
    missing: 'REQUIRED_INFO_MISSING',
    resolve: weatherSensor,
    accepts: () => true,
    expected: 'a unit of the sensor type, such as °C, kW/m² or m/s',
    usef: false,
  },
} satisfies Record<string, UploadKind>;

/** The status name of a problem that `evenlySpacedEvents` found with an upload. */
function problemName(problems: Problems, unitProblem: string): LegacyErrorName {
  if (problems._schema?.includes(unitProblem)) return 'INVALID_UNIT';
  return problems._schema ? 'INVALID_RESOLUTION' : 'INVALID_PERIOD';
}

/**
 * Handles an upload message: every address of every group gets the group's values, upsampled
 * to its sensor's resolution and converted to its unit; all are stored, or none.
 */
async function upload(call: LegacyCall, v: LegacyVersion, kind: UploadKind) {
  const { ctx, user } = call;
  const msg = readMessage(ctx);
  expectType(msg, kind.request);
  const groups = readUploadGroups(msg, kind.key, kind.missing);
  const { start, durationMs } = readPeriod(msg);
  const unit = readUnit(msg, kind.accepts, kind.expected);
  const startMs = start.toMillis();
  const { timing, stated } = readUploadTiming(msg, atLeast(v, '2.0'), { startMs, durationMs });
  const uploads: SensorUpload[] = [];
  for (const group of groups) {
    for (const address of group.addresses) {
      const sensor = await kind.resolve(call, address);
      const sign = kind.usef ? consumptionSign(sensor) : 1;
      const values = group.values.map((x) => (x === null ? null : sign * x));
      const built = evenlySpacedEvents(sensor, { values, startMs, durationMs, unit, timing });
      if ('problems' in built) {
        const text = Object.values(built.problems).flat().join(' ');
        throw legacyError(problemName(built.problems, unitMismatch(sensor, unit)), `${address}: ${text}`);
      }
      const endMs = (e: { eventStartMs: number }) => e.eventStartMs + sensor.event_resolution_ms;
      const wrongSide =
        kind.knownWhen === 'after' ? (e: UploadEvent) => e.beliefTimeMs < endMs(e) : (e: UploadEvent) => e.beliefTimeMs > endMs(e);
      if (stated && kind.knownWhen && built.events.some(wrongSide)) {
        throw legacyError(
          'INVALID_HORIZON',
          kind.knownWhen === 'after'
            ? 'Meter data are observations: they can only be known after each interval ended (a zero or negative horizon).'
            : 'Prognoses are forecasts: they must be known before each interval ended (a zero or positive horizon).',
        );
      }
      authorize(user, 'create-children', await ownedAccess(ctx.services.db, 'sensor', sensor.account_id));
      uploads.push({ sensorId: sensor.id, eventResolutionMs: sensor.event_resolution_ms, events: built.events });
    }
  }
  return { type: kind.response, ...(await storeUploads(ctx, user, uploads)) };
}

/** Reads the optional `source` filter: data source ids, one or a list; INVALID_SOURCE when unknown. */
async function readSources(ctx: AppContext, value: unknown): Promise<number[] | undefined> {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((s) => String(s).split(',')).map((s) => s.trim());
  const ids = parts.map(Number);
  const bad = parts.find((s, i) => !/^\d{1,15}$/.test(s) || !Number.isSafeInteger(ids[i]));
  if (bad !== undefined) throw legacyError('INVALID_SOURCE', `The source '${bad}' is no data source id.`);
  const known = new Set((await listSources(ctx.services.db, { ids })).map((s) => s.id));
  const unknown = ids.find((id) => !known.has(id));
  if (unknown !== undefined) throw legacyError('INVALID_SOURCE', `No data source with id ${unknown} is known.`);
  return ids;
}

/**
 * Handles a download message: the values of each connection over the period, most recent
 * beliefs, in the requested unit and (optional) resolution, consumption positive.
 */
async function download(call: LegacyCall, request: 'GetMeterDataRequest' | 'GetPrognosisRequest', response: string) {
  const { ctx, user } = call;
  const msg = readMessage(ctx);
  expectType(msg, request);
  const addresses = readConnections(msg);
  const { start, durationMs } = readPeriod(msg);
  const unit = readUnit(msg, powerUnit.accepts, powerUnit.expected);
  const stepMs = readDuration(msg.resolution, 'resolution', 'INVALID_RESOLUTION');
  const horizon = readHorizon(msg.horizon);
  const prior = readDateTime(msg.prior, 'prior', 'INVALID_HORIZON');
  const sourceIds = await readSources(ctx, msg.source);
  const groups: { connection: string; values: (number | null)[] }[] = [];
  let resolutionMs = 0;
  for (const address of addresses) {
    const sensor = await connectionSensor(call, address);
    authorize(user, 'read', await ownedAccess(ctx.services.db, 'sensor', sensor.account_id));
    const data = await readSensorData(ctx.services.db, sensor, {
      startMs: start.toMillis(),
      durationMs,
      unit,
      stepMs,
      beliefsBeforeMs: prior?.toMillis(),
      horizonAtLeastMs: horizon?.ms,
      sourceIds,
      type: request,
    });
    if ('problems' in data) {
      const text = Object.values(data.problems).flat().join(' ');
      const name = data.problems._schema?.includes(unitMismatch(sensor, unit)) ? 'INVALID_UNIT' : 'INVALID_RESOLUTION';
      throw legacyError(name, `${address}: ${text}`);
    }
    const sign = consumptionSign(sensor);
    groups.push({ connection: address, values: data.values.map((x) => (x === null ? null : sign * x)) });
    resolutionMs = data.resolutionMs;
  }
  const series = groups.length === 1 ? groups[0] : { groups };
  return {
    ...series,
    start: formatStart(start),
    duration: formatDurationHours(durationMs),
    unit,
    resolution: formatDurationHours(resolutionMs),
    ...processed(response),
  };
}

/** The data endpoints, by route name. */
export const dataEndpoints = {
  getMeterData: (call: LegacyCall) => download(call, 'GetMeterDataRequest', 'GetMeterDataResponse'),
  getPrognosis: (call: LegacyCall) => download(call, 'GetPrognosisRequest', 'GetPrognosisResponse'),
  postMeterData: (call: LegacyCall, v: LegacyVersion) => upload(call, v, uploadKinds.postMeterData),
  postPrognosis: (call: LegacyCall, v: LegacyVersion) => upload(call, v, uploadKinds.postPrognosis),
  postPriceData: (call: LegacyCall, v: LegacyVersion) => upload(call, v, uploadKinds.postPriceData),
  postWeatherData: (call: LegacyCall, v: LegacyVersion) => upload(call, v, uploadKinds.postWeatherData),
};
