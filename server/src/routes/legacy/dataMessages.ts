import { readSensorData } from '../../queries/readSensorData.ts';
import type { SensorUpload } from '../../commands/storeSensorData.ts';
import { evenlySpacedEvents, unitMismatch, type Problems, type UploadEvent } from '../../domain/sensorData.ts';
import { formatDurationHours, formatStart } from '../../domain/time.ts';
import { isEnergyPriceUnit, isPowerUnit } from '../../domain/units.ts';
import * as wire from '../../contracts/responses.ts';
import { messageBody, unplacedRoute, type Loaded, type PlacedLater } from '../../http/routes.ts';
import type { Permission } from '../../policies/access.ts';
import { consumptionSign } from '../../scheduling/buildProblem.ts';
import type { SensorInContext } from '../../store/sensors.ts';
import type { Knex } from 'knex';
import { listSources } from '../../store/sources.ts';
import { storeUploads } from '../sensorUploads.ts';
import { sensorNeeds } from '../load.ts';
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
  type Message,
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
  summary: string;
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
    summary: 'Upload meter data',
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
    summary: 'Upload prognoses',
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
    summary: 'Upload prices',
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
    summary: 'Upload weather data',
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

/** An address of a message and the sensor it names, authorized as that sensor. */
interface Addressed<T> {
  address: string;
  sensor: SensorInContext;
  part: T;
}

/**
 * Resolves the addresses of a message in order (the first unknown one answers), each loaded with
 * the permission the endpoint needs on its sensor.
 */
async function loadAddressed<T>(
  call: LegacyCall,
  parts: { address: string; part: T }[],
  resolve: (call: LegacyCall, text: string) => Promise<SensorInContext>,
  permission: Permission,
): Promise<Loaded<Addressed<T>>[]> {
  const loaded: Loaded<Addressed<T>>[] = [];
  for (const { address, part } of parts) {
    const sensor = await resolve(call, address);
    loaded.push({ ...sensorNeeds(sensor, permission), value: { address, sensor, part } });
  }
  return loaded;
}

/** Reads an upload message: its value groups, period, unit and timing. */
function readUpload(msg: Message, v: LegacyVersion, kind: UploadKind, nowMs: number) {
  expectType(msg, kind.request);
  const groups = readUploadGroups(msg, kind.key, kind.missing);
  const { start, durationMs } = readPeriod(msg);
  const unit = readUnit(msg, kind.accepts, kind.expected);
  const startMs = start.toMillis();
  return { groups, startMs, durationMs, unit, ...readUploadTiming(msg, atLeast(v, '2.0'), { startMs, durationMs }, nowMs) };
}

/**
 * An upload message: every address of every group (each a sensor the caller may write to) gets
 * the group's values, upsampled to its sensor's resolution and converted to its unit; all are
 * stored, or none.
 */
const uploadRoute =
  (kind: UploadKind) =>
  (v: LegacyVersion): PlacedLater =>
    unplacedRoute({
      summary: kind.summary,
      request: { json: messageBody((ctx) => readUpload(readMessage(ctx), v, kind, ctx.services.clock.now())) },
      load: async (call) => ({
        targets: await loadAddressed(
          call,
          call.body.groups.flatMap((group) => group.addresses.map((address) => ({ address, part: group.values }))),
          kind.resolve,
          'create-children',
        ),
      }),
      check: ({ body, loaded }) =>
        loaded.targets.map(({ address, sensor, part }): SensorUpload => {
          const { startMs, durationMs, unit, timing, stated } = body;
          const sign = kind.usef ? consumptionSign(sensor) : 1;
          const values = part.map((x) => (x === null ? null : sign * x));
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
          return { sensorId: sensor.id, eventResolutionMs: sensor.event_resolution_ms, events: built.events };
        }),
      command: async (call) => ({ type: kind.response, ...(await storeUploads(call, call.checked)) }),
      response: { schema: wire.legacyAnswer },
    });

/** Reads the optional `source` filter: data source ids, one or a list; INVALID_SOURCE when unknown. */
async function readSources(db: Knex, value: unknown): Promise<number[] | undefined> {
  if (value === undefined) return undefined;
  const parts = (Array.isArray(value) ? value : [value]).flatMap((s) => String(s).split(',')).map((s) => s.trim());
  const ids = parts.map(Number);
  const bad = parts.find((s, i) => !/^\d{1,15}$/.test(s) || !Number.isSafeInteger(ids[i]));
  if (bad !== undefined) throw legacyError('INVALID_SOURCE', `The source '${bad}' is no data source id.`);
  const known = new Set((await listSources(db, { ids })).map((s) => s.id));
  const unknown = ids.find((id) => !known.has(id));
  if (unknown !== undefined) throw legacyError('INVALID_SOURCE', `No data source with id ${unknown} is known.`);
  return ids;
}

/** Reads a download message: its connections, period, unit, resolution and belief filters. */
function readDownload(msg: Message, request: string) {
  expectType(msg, request);
  const addresses = readConnections(msg);
  const { start, durationMs } = readPeriod(msg);
  const unit = readUnit(msg, powerUnit.accepts, powerUnit.expected);
  const stepMs = readDuration(msg.resolution, 'resolution', 'INVALID_RESOLUTION');
  const horizon = readHorizon(msg.horizon);
  const prior = readDateTime(msg.prior, 'prior', 'INVALID_HORIZON');
  return { addresses, start, durationMs, unit, stepMs, horizon, prior, source: msg.source };
}

/**
 * A download message: the values of each connection (a sensor the caller may read) over the
 * period, most recent beliefs, in the requested unit and (optional) resolution, consumption positive.
 */
const downloadRoute = (summary: string, request: 'GetMeterDataRequest' | 'GetPrognosisRequest', response: string) => (): PlacedLater =>
  unplacedRoute({
    summary,
    request: { json: messageBody((ctx) => readDownload(readMessage(ctx), request)) },
    load: async (call) => ({
      connections: await loadAddressed(
        call,
        call.body.addresses.map((address) => ({ address, part: null })),
        connectionSensor,
        'read',
      ),
    }),
    check: ({ db, body }) => readSources(db, body.source),
    command: async ({ db, body, loaded, checked: sourceIds }) => {
      const { start, durationMs, unit, stepMs, horizon, prior } = body;
      const groups: { connection: string; values: (number | null)[] }[] = [];
      let resolutionMs = 0;
      for (const { address, sensor } of loaded.connections) {
        const data = await readSensorData(db, sensor, {
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
    },
    response: { schema: wire.legacyAnswer },
  });

/** The data endpoints, by route name. */
export const dataEndpoints = {
  getMeterData: downloadRoute('Download meter data', 'GetMeterDataRequest', 'GetMeterDataResponse'),
  getPrognosis: downloadRoute('Download prognoses', 'GetPrognosisRequest', 'GetPrognosisResponse'),
  postMeterData: uploadRoute(uploadKinds.postMeterData),
  postPrognosis: uploadRoute(uploadKinds.postPrognosis),
  postPriceData: uploadRoute(uploadKinds.postPriceData),
  postWeatherData: uploadRoute(uploadKinds.postWeatherData),
};
