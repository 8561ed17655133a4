import type { z } from 'zod';
import { readSensorData } from '../../commands/readSensorData.ts';
import { getSensorData, getSensorDataById, postSensorData, postSensorDataById } from '../../contracts/sensorData.ts';
import { csvEvents, parseBeliefsCsv } from '../../domain/beliefsCsv.ts';
import { parseEntityAddress } from '../../domain/entityAddress.ts';
import { downloadProblems, evenlySpacedEvents, type BeliefTiming, type UploadEvent } from '../../domain/sensorData.ts';
import { formatDurationHours, formatStart } from '../../domain/time.ts';
import { isValidUnit } from '../../domain/units.ts';
import { fieldError, unprocessable } from '../../errors.ts';
import { checkJsonBody, parseJsonText } from '../../http/jsonBody.ts';
import type { AppContext } from '../../http/context.ts';
import { readFormData } from '../../http/multipart.ts';
import { readRawBody } from '../../http/rawBody.ts';
import type { RouteSpec } from '../../http/routes.ts';
import { fieldMessages } from '../../http/validate.ts';
import { authorize } from '../../policies/access.ts';
import { getSensor, type SensorInContext } from '../../store/sensors.ts';
import { listSources } from '../../store/sources.ts';
import { PROCESSED, storeUploads } from '../sensorUploads.ts';
import { idParams, loadSensor, ownedAccess } from './load.ts';

const UPLOAD_LIMIT_BYTES = 64 * 1024 * 1024;
const GET_BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Validates a data message, reporting the sensor's existence among the field messages as the
 * reference does. With `pathSensor` (the `/sensors/<id>/data` form), a `sensor` in the message
 * must name that same sensor.
 * @returns the parsed message and its sensor; throws the 422 answer otherwise.
 */
async function validated<S extends z.ZodType>(
  ctx: AppContext,
  schema: S,
  data: unknown,
  location: 'json' | 'query',
  pathSensor?: SensorInContext,
): Promise<{ input: z.output<S>; sensor: SensorInContext }> {
  const parsed = schema.safeParse(data, { reportInput: true });
  const fields = parsed.success ? {} : fieldMessages(parsed.error.issues);
  const ea = data && typeof data === 'object' ? (data as Record<string, unknown>).sensor : undefined;
  let sensor = pathSensor;
  if (typeof ea === 'string' && !fields.sensor) {
    const id = parseEntityAddress(ea);
    if (pathSensor && id !== pathSensor.id) {
      fields.sensor = [`The entity address ${ea} does not name sensor ${pathSensor.id} of the path.`];
    } else if (!pathSensor && typeof id === 'number') {
      sensor = await getSensor(ctx.services.db, id);
      if (!sensor) fields.sensor = [`sensor with entity address ${ea} doesn't exist.`];
    }
  }
  if (!parsed.success || Object.keys(fields).length || !sensor) throw unprocessable(location, fields);
  return { input: parsed.data, sensor };
}

/** Stores an upload as beliefs of the caller's own data source and answers as the reference does. */
async function store(ctx: AppContext, sensor: SensorInContext, events: UploadEvent[]): Promise<void> {
  ctx.body = await storeUploads(ctx, [{ sensorId: sensor.id, events }]);
}

async function postData(ctx: AppContext, byPath: boolean): Promise<void> {
  const pathSensor = byPath ? await loadSensor(ctx) : undefined;
  const schema = byPath ? postSensorDataById : postSensorData;
  const { input, sensor } = await validated(ctx, schema, ctx.request.body, 'json', pathSensor);
  const timing: BeliefTiming = input.prior
    ? { priorMs: input.prior.toMillis() }
    : input.horizon !== undefined
      ? { horizonMs: input.horizon }
      : { nowMs: Date.now() };
  const built = evenlySpacedEvents(sensor, {
    values: input.values,
    startMs: input.start.toMillis(),
    durationMs: input.duration,
    unit: input.unit,
    timing,
    type: input.type,
  });
  if ('problems' in built) throw unprocessable('json', built.problems);
  authorize(ctx.state.user!, 'create-children', await ownedAccess(ctx, 'sensor', sensor.account_id));
  await store(ctx, sensor, built.events);
}

/** The JSON object a GET carries as its body (the body parser only reads those of POST and PATCH). */
async function jsonBodyOfGet(ctx: AppContext): Promise<Record<string, unknown> | undefined> {
  const text = (await readRawBody(ctx, GET_BODY_LIMIT_BYTES)).toString('utf8').trim();
  if (!text) return undefined;
  const body = parseJsonText(text);
  checkJsonBody(body);
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : undefined;
}

async function getData(ctx: AppContext, byPath: boolean): Promise<void> {
  const pathSensor = byPath ? await loadSensor(ctx) : undefined;
  const schema = byPath ? getSensorDataById : getSensorData;
  // The reference reads the query string; the spec speaks of a JSON body, so a GET without a
  // query string is read from its body, if it has one.
  const body = Object.keys(ctx.query).length ? undefined : await jsonBodyOfGet(ctx);
  const location = body ? 'json' : 'query';
  const { input, sensor } = await validated(ctx, schema, body ?? ctx.query, location, pathSensor);
  const { db } = ctx.services;
  if (input.source) {
    const known = new Set((await listSources(db, { ids: input.source })).map((s) => s.id));
    const unknown = input.source.find((id) => !known.has(id));
    if (unknown !== undefined) throw fieldError(location, 'source', `No data source found with id ${unknown}.`);
  }
  const problems = downloadProblems(sensor, input.unit, input.type);
  if (problems.length) throw unprocessable(location, { _schema: problems });
  const startMs = input.start.toMillis();
  const data = await readSensorData(db, sensor, {
    startMs,
    durationMs: input.duration,
    unit: input.unit,
    stepMs: input.resolution,
    beliefsBeforeMs: input.prior?.toMillis(),
    horizonAtLeastMs: input.horizon,
    sourceIds: input.source,
    type: input.type,
  });
  if ('problems' in data) throw unprocessable(location, data.problems);
  authorize(ctx.state.user!, 'read', await ownedAccess(ctx, 'sensor', sensor.account_id));
  ctx.body = {
    values: data.values,
    start: formatStart(input.start),
    duration: formatDurationHours(input.duration),
    unit: input.unit,
    resolution: formatDurationHours(data.resolutionMs),
    ...PROCESSED,
  };
}

const truthy = new Set(['on', 'true', 'True', '1']);
const falsy = new Set(['off', 'false', 'False', '0']);

/** `POST /sensors/<id>/data/upload`: CSV files in the form field `uploaded-files`. */
async function uploadFiles(ctx: AppContext): Promise<void> {
  const sensor = await loadSensor(ctx);
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
  const timing: BeliefTiming = typeof instantly === 'string' && truthy.has(instantly) ? { horizonMs: 0 } : { nowMs: Date.now() };
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
  authorize(ctx.state.user!, 'create-children', await ownedAccess(ctx, 'sensor', sensor.account_id));
  await store(ctx, sensor, events);
}

/** Sensor data endpoints. They precede `/sensors/:id`, which would otherwise take `/sensors/data`. */
export const sensorDataRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/sensors/data',
    summary: 'Download sensor data',
    request: { query: getSensorData },
    handler: (ctx) => getData(ctx, false),
  },
  {
    method: 'POST',
    path: '/sensors/data',
    summary: 'Upload sensor data',
    request: { json: postSensorData },
    handler: (ctx) => postData(ctx, false),
  },
  {
    method: 'GET',
    path: '/sensors/:id/data',
    summary: 'Download sensor data',
    request: { params: idParams, query: getSensorDataById },
    handler: (ctx) => getData(ctx, true),
  },
  {
    method: 'POST',
    path: '/sensors/:id/data',
    summary: 'Upload sensor data',
    request: { params: idParams, json: postSensorDataById },
    handler: (ctx) => postData(ctx, true),
  },
  {
    method: 'POST',
    path: '/sensors/:id/data/upload',
    summary: 'Upload sensor data from CSV files',
    request: { params: idParams, multipart: true },
    handler: uploadFiles,
  },
];
