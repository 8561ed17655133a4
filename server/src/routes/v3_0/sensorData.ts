import type { Knex } from 'knex';
import type { z } from 'zod';
import { readSensorData } from '../../queries/readSensorData.ts';
import { getSensorData, getSensorDataById, postSensorData, postSensorDataById } from '../../contracts/sensorData.ts';
import { csvEvents, parseBeliefsCsv } from '../../domain/beliefsCsv.ts';
import { downloadProblems, evenlySpacedEvents, type BeliefTiming, type UploadEvent } from '../../domain/sensorData.ts';
import { formatDurationHours, formatStart } from '../../domain/time.ts';
import { isValidUnit } from '../../domain/units.ts';
import { fieldError, notFound, unprocessable, type Location } from '../../errors.ts';
import { checkJsonBody, parseJsonText } from '../../http/jsonBody.ts';
import type { AppContext } from '../../http/context.ts';
import { readFormData } from '../../http/multipart.ts';
import { readRawBody } from '../../http/rawBody.ts';
import { route } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import type { Permission } from '../../policies/access.ts';
import { getAccount } from '../../store/accounts.ts';
import { getSensor, type SensorInContext } from '../../store/sensors.ts';
import { listSources } from '../../store/sources.ts';
import { PROCESSED, storeSensorUpload } from '../sensorUploads.ts';
import { idParams, sensorById, sensorNeeds } from '../load.ts';

const UPLOAD_LIMIT_BYTES = 64 * 1024 * 1024;
const GET_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The sensor a data message names: the path's, or the one of its `sensor` entity address (which,
 * with a path sensor, must name that same sensor); unknown sensors are a 422 under `sensor`.
 */
async function messageSensor(
  db: Knex,
  path: { id: number } | undefined,
  named: { id: number; address: string } | undefined,
  location: Location,
  permission: Permission,
) {
  if (path) {
    const loaded = await sensorById(db, path.id, permission);
    if (named && named.id !== loaded.value.id) {
      throw fieldError(location, 'sensor', `The entity address ${named.address} does not name sensor ${loaded.value.id} of the path.`);
    }
    return loaded;
  }
  const sensor = await getSensor(db, named!.id);
  if (!sensor) throw fieldError(location, 'sensor', `sensor with entity address ${named!.address} doesn't exist.`);
  return sensorNeeds(sensor, permission);
}

/** The upload of a data message as events in the sensor's unit and resolution; 422 otherwise. */
function uploadEvents(sensor: SensorInContext, input: z.output<typeof postSensorDataById>, nowMs: number): UploadEvent[] {
  const timing: BeliefTiming = input.prior
    ? { priorMs: input.prior.toMillis() }
    : input.horizon !== undefined
      ? { horizonMs: input.horizon }
      : { nowMs };
  const built = evenlySpacedEvents(sensor, {
    values: input.values,
    startMs: input.start.toMillis(),
    durationMs: input.duration,
    unit: input.unit,
    timing,
    type: input.type,
  });
  if ('problems' in built) throw unprocessable('json', built.problems);
  return built.events;
}

/** The JSON object a GET carries as its body (the body parser only reads those of POST and PATCH). */
async function jsonBodyOfGet(ctx: AppContext): Promise<Record<string, unknown> | undefined> {
  const text = (await readRawBody(ctx, GET_BODY_LIMIT_BYTES)).toString('utf8').trim();
  if (!text) return undefined;
  const body = parseJsonText(text);
  checkJsonBody(body);
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

/** A GET's query: the query string, else (the spec speaks of a JSON body) the JSON body, if any. */
async function dataQuery(ctx: AppContext): Promise<{ data: unknown; location: Location }> {
  const body = Object.keys(ctx.query).length ? undefined : await jsonBodyOfGet(ctx);
  return body ? { data: body, location: 'json' } : { data: ctx.query, location: 'query' };
}

type DownloadQuery = z.output<typeof getSensorDataById>;

/** Data problems the request shows against its sensor and the known sources (422). */
async function checkDownload({
  db,
  query,
  queryLocation,
  loaded,
}: {
  db: Knex;
  query: DownloadQuery;
  queryLocation: Location;
  loaded: { sensor: SensorInContext };
}) {
  if (query.source) {
    const known = new Set((await listSources(db, { ids: query.source })).map((s) => s.id));
    const unknown = query.source.find((id) => !known.has(id));
    if (unknown !== undefined) throw fieldError(queryLocation, 'source', `No data source found with id ${unknown}.`);
  }
  // 1.0 names the account as its account ids are named everywhere: an unknown one is a 404.
  const sourceAccount = query['source-account'] ?? query.source_account;
  if (sourceAccount !== undefined && !(await getAccount(db, sourceAccount))) throw notFound(`Account ${sourceAccount} not found`);
  const problems = downloadProblems(loaded.sensor, query.unit, query.type);
  if (problems.length) {
    await checkSourceType({ db, query, queryLocation, sensor: loaded.sensor });
    throw unprocessable(queryLocation, { _schema: problems });
  }
}

/**
 * A source-type filter must name a type of source that recorded data on the sensor (422). The
 * download asks only when its answer leaves that open: a value read through the filter comes from
 * a belief of such a source on the sensor, and every belief's sensor/source pair is in the
 * sensor's source list (written with the belief, kept when beliefs are deleted), so the check
 * would pass. This spares the common read of a device (one value it finds) a statement; the
 * check still answers before any other problem of the request.
 */
async function checkSourceType({
  db,
  query,
  queryLocation,
  sensor,
}: {
  db: Knex;
  query: DownloadQuery;
  queryLocation: Location;
  sensor: SensorInContext;
}) {
  const sourceType = query['source-type'] ?? query.source_type;
  if (sourceType !== undefined && !(await listSources(db, { sensorId: sensor.id })).some((s) => s.type === sourceType)) {
    throw fieldError(queryLocation, 'source_type', `No data source with source-type '${sourceType}' has recorded any data on this sensor.`);
  }
}

async function download({
  db,
  query,
  queryLocation,
  loaded: { sensor },
}: {
  db: Knex;
  query: DownloadQuery;
  queryLocation: Location;
  loaded: { sensor: SensorInContext };
}) {
  const data = await readSensorData(db, sensor, {
    startMs: query.start.toMillis(),
    durationMs: query.duration,
    unit: query.unit,
    stepMs: query.resolution,
    beliefsBeforeMs: query.prior?.toMillis(),
    horizonAtLeastMs: query.horizon,
    sourceIds: query.source,
    sourceAccountId: query['source-account'] ?? query.source_account,
    sourceType: query['source-type'] ?? query.source_type,
    type: query.type,
  });
  if ('problems' in data || data.values.every((v) => v === null)) await checkSourceType({ db, query, queryLocation, sensor });
  if ('problems' in data) throw unprocessable(queryLocation, data.problems);
  return {
    values: data.values,
    start: formatStart(query.start),
    duration: formatDurationHours(query.duration),
    unit: query.unit,
    resolution: formatDurationHours(data.resolutionMs),
    ...PROCESSED,
  };
}

const truthy = new Set(['on', 'true', 'True', '1']);
const falsy = new Set(['off', 'false', 'False', '0']);

/** `POST /sensors/<id>/data/upload`: the CSV files of the form field `uploaded-files` as events (422 otherwise). */
async function uploadedFiles(ctx: AppContext, sensor: SensorInContext): Promise<UploadEvent[]> {
  const form = await readFormData(ctx, UPLOAD_LIMIT_BYTES);
  const fields: Record<string, unknown> = {};
  const files = (form?.getAll('uploaded-files') ?? []).filter((f): f is File => typeof f !== 'string');
  if (!files.length) fields['uploaded-files'] = ['Missing data for required field.'];
  const instantly = form?.get('belief-time-measured-instantly') ?? null;
  if (instantly !== null && (typeof instantly !== 'string' || !(truthy.has(instantly) || falsy.has(instantly)))) {
    fields['belief-time-measured-instantly'] = ['Not a valid boolean.'];
  }
  const unitField = form?.get('unit');
  const unit = typeof unitField === 'string' && unitField.trim() ? unitField.trim() : sensor.unit;
  if (unit !== sensor.unit && !isValidUnit(unit)) fields.unit = [`Unit '${unit}' cannot be handled.`];
  if (Object.keys(fields).length) throw unprocessable('form', fields);

  // Measured instantly: known when each event ended (horizon zero); otherwise known now.
  const timing: BeliefTiming =
    typeof instantly === 'string' && truthy.has(instantly) ? { horizonMs: 0 } : { nowMs: ctx.services.clock.now() };
  const fileErrors: Record<string, string[]> = {};
  const events: UploadEvent[] = [];
  for (const [i, file] of files.entries()) {
    if (!/\.(csv|txt)$/i.test(file.name)) {
      fileErrors[i] = [`Invalid filename: ${file.name}. Only CSV files are accepted.`];
      continue;
    }
    const parsed = parseBeliefsCsv(await file.text(), sensor.timezone);
    if ('error' in parsed) {
      fileErrors[i] = [`Invalid content in file: ${file.name}. Failed with: ${parsed.error}`];
      continue;
    }
    const built = csvEvents(sensor, parsed.rows, unit, timing);
    if ('problems' in built) fileErrors[i] = Object.values(built.problems).flat();
    else events.push(...built.events);
  }
  if (Object.keys(fileErrors).length) throw unprocessable('form', { 'uploaded-files': fileErrors });
  return events;
}

/** Sensor data endpoints. They precede `/sensors/:id`, which would otherwise take `/sensors/data`. */
export const sensorDataRoutes = [
  route({
    method: 'GET',
    path: '/sensors/data',
    summary: 'Download sensor data',
    request: { query: getSensorData, queryInput: dataQuery },
    load: async ({ db, query, queryLocation }) => ({ sensor: await messageSensor(db, undefined, query.sensor, queryLocation, 'read') }),
    check: (call) => checkDownload(call),
    command: (call) => download({ ...call, db: call.ctx.services.reader }),
    response: { schema: wire.sensorDataAnswer },
  }),
  route({
    method: 'POST',
    path: '/sensors/data',
    summary: 'Upload sensor data',
    request: { json: postSensorData },
    load: async ({ db, body }) => ({ sensor: await messageSensor(db, undefined, body.sensor, 'json', 'create-children') }),
    check: ({ ctx, body, loaded }) => uploadEvents(loaded.sensor, body, ctx.services.clock.now()),
    command: (call) => storeSensorUpload(call, call.loaded.sensor, call.checked),
    response: { schema: wire.processedAnswer },
  }),
  route({
    method: 'GET',
    path: '/sensors/:id/data',
    summary: 'Download sensor data',
    request: { params: idParams, query: getSensorDataById, queryInput: dataQuery },
    load: async ({ db, params, query, queryLocation }) => ({
      sensor: await messageSensor(db, params, query.sensor, queryLocation, 'read'),
    }),
    check: (call) => checkDownload(call),
    command: (call) => download({ ...call, db: call.ctx.services.reader }),
    response: { schema: wire.sensorDataAnswer },
  }),
  route({
    method: 'POST',
    path: '/sensors/:id/data',
    summary: 'Upload sensor data',
    request: { params: idParams, json: postSensorDataById },
    load: async ({ db, params, body }) => ({ sensor: await messageSensor(db, params, body.sensor, 'json', 'create-children') }),
    check: ({ ctx, body, loaded }) => uploadEvents(loaded.sensor, body, ctx.services.clock.now()),
    command: (call) => storeSensorUpload(call, call.loaded.sensor, call.checked),
    response: { schema: wire.processedAnswer },
  }),
  route({
    method: 'POST',
    path: '/sensors/:id/data/upload',
    summary: 'Upload sensor data from CSV files',
    request: { params: idParams, multipart: true },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'create-children') }),
    check: ({ ctx, loaded }) => uploadedFiles(ctx, loaded.sensor),
    command: (call) => storeSensorUpload(call, call.loaded.sensor, call.checked),
    response: { schema: wire.processedAnswer },
  }),
];
