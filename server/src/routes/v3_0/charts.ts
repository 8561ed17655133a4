import type { Knex } from 'knex';
import { z } from 'zod';
import { awareDateTime, boolText, intText, isoDuration } from '../../contracts/fields.ts';
import { beliefChartSpec, isoInZone, wallClockMs, type ChartRecord, type ChartRow, type ChartSensor } from '../../charts/beliefChart.ts';
import { fieldError } from '../../errors.ts';
import { route } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import { can } from '../../policies/access.ts';
import { sensorAccess } from '../../policies/references.ts';
import type { Asset } from '../../store/assets.ts';
import { chartAnnotations } from '../../charts/annotations.ts';
import { assetAnnotations } from '../../store/annotations.ts';
import { beliefHistory } from '../../store/beliefHistory.ts';
import { mostRecentBeliefs, type StoredBelief } from '../../store/beliefs.ts';
import { getSensor, listSensors, type SensorInContext } from '../../store/sensors.ts';
import { listSources } from '../../store/sources.ts';
import type { User } from '../../store/users.ts';
import { assetById, idParams, sensorById } from '../load.ts';

const DAY_MS = 86_400_000;
const MAX_WINDOW_MS = 366 * DAY_MS;

/**
 * Query of the `chart_data/` endpoints: the event window and the belief-time filters. FlexMeasures
 * 1.0 names the window `start`/`end` (any two of them and `duration`) and `beliefs_before` `prior`;
 * both spellings are read.
 */
const chartDataQuery = z.object({
  event_starts_after: awareDateTime.optional(),
  event_ends_before: awareDateTime.optional(),
  start: awareDateTime.optional(),
  end: awareDateTime.optional(),
  duration: isoDuration.optional(),
  beliefs_after: awareDateTime.optional(),
  beliefs_before: awareDateTime.optional(),
  prior: awareDateTime.optional(),
  most_recent_beliefs_only: boolText.optional(),
  'most-recent-beliefs-only': boolText.optional(),
});

const size = (max: number) => intText.pipe(z.number().int().min(10).max(max));

/** Query of the `chart/` endpoints: the same, plus how to draw. */
const datasetName = z.string().regex(/^\w{1,64}$/, 'Use 1 to 64 letters, digits or underscores.');
const chartQuery = chartDataQuery.extend({
  include_data: boolText.optional(),
  'include-data': boolText.optional(),
  dataset_name: datasetName.optional(),
  'dataset-name': datasetName.optional(),
  width: z.union([z.literal('container'), size(4000)]).optional(),
  height: size(2000).optional(),
});

type DataQuery = z.output<typeof chartDataQuery>;

/** Query of `chart_annotations` (FlexMeasures 1.0): the window, belief times, and whether to clip to the window. */
const annotationsQuery = chartDataQuery.extend({ clip: boolText.optional() });

/** The event window; without bounds, the last six days and the coming one. */
function windowOf(query: DataQuery): { startMs: number; endMs: number } {
  const now = Date.now();
  const start = query.start ?? query.event_starts_after;
  const end = query.end ?? query.event_ends_before ?? (start && query.duration ? start.plus(query.duration.luxon) : undefined);
  const from = start ?? (end && query.duration ? end.minus(query.duration.luxon) : undefined);
  const endMs = end?.toMillis() ?? (from ? from.toMillis() + 7 * DAY_MS : now + DAY_MS);
  const startMs = from?.toMillis() ?? endMs - 7 * DAY_MS;
  if (endMs <= startMs) throw fieldError('query', 'event_ends_before', 'Must be later than event_starts_after.');
  if (endMs - startMs > MAX_WINDOW_MS) throw fieldError('query', 'event_ends_before', 'A chart covers at most 366 days.');
  return { startMs, endMs };
}

/**
 * The beliefs of the sensors in the window as chart records: by default the most recent belief
 * per event and source, else every belief (how the knowledge changed).
 */
async function chartRecords(db: Knex, sensors: SensorInContext[], query: DataQuery, zone: string): Promise<ChartRecord[]> {
  const { startMs, endMs } = windowOf(query);
  const afterMs = query.beliefs_after?.toMillis();
  const beforeMs = (query.prior ?? query.beliefs_before)?.toMillis();
  const mostRecentOnly = query['most-recent-beliefs-only'] ?? query.most_recent_beliefs_only;
  const perSensor = await Promise.all(
    sensors.map(async (sensor) => {
      const beliefs =
        mostRecentOnly === false
          ? await beliefHistory(db, {
              sensorId: sensor.id,
              resolutionMs: sensor.event_resolution_ms,
              startMs,
              endMs,
              beliefsAfterMs: afterMs,
              beliefsBeforeMs: beforeMs,
            })
          : // A most recent belief formed after `beliefs_after` is exactly one that passes both filters.
            (await mostRecentBeliefs(db, { sensorId: sensor.id, startMs, endMs, beliefsBeforeMs: beforeMs, perSource: true })).filter(
              (b) => afterMs === undefined || b.beliefTimeMs >= afterMs,
            );
      return { sensor, beliefs };
    }),
  );
  const sourceIds = [...new Set(perSensor.flatMap((p) => p.beliefs.map((b) => b.sourceId)))];
  const sources = new Map((sourceIds.length ? await listSources(db, { ids: sourceIds }) : []).map((s) => [s.id, s]));
  // Per sensor in the order shown, then by event, belief time and source.
  const order = (a: StoredBelief, b: StoredBelief) =>
    a.eventStartMs - b.eventStartMs || a.beliefTimeMs - b.beliefTimeMs || a.sourceId - b.sourceId;
  return perSensor.flatMap(({ sensor, beliefs }) =>
    [...beliefs].sort(order).map((b) => {
      const source = sources.get(b.sourceId);
      return {
        sensor_id: sensor.id,
        sensor: sensor.name,
        unit: sensor.unit,
        event_start: isoInZone(b.eventStartMs, zone),
        event_value: b.value,
        belief_time: isoInZone(b.beliefTimeMs, zone),
        source: source?.name ?? `source ${b.sourceId}`,
        source_id: b.sourceId,
        source_type: source?.type ?? '',
        local_time: wallClockMs(b.eventStartMs, zone),
      };
    }),
  );
}

/**
 * The plots of an asset's chart: one per entry of its `sensors_to_show` (an entry may be a
 * list of sensors sharing a plot), or one per sensor of the asset when it names none. Sensors
 * that are gone or that the caller may not read are left out.
 */
async function assetRows(db: Knex, user: User, asset: Asset): Promise<{ rows: ChartRow[]; sensors: SensorInContext[] }> {
  const listed = asset.attributes.sensors_to_show;
  const groups: number[][] = Array.isArray(listed)
    ? listed.map((entry: unknown) => (Array.isArray(entry) ? entry : [entry]).filter((v): v is number => Number.isSafeInteger(v)))
    : (await listSensors(db, { assetId: asset.id })).map((s) => [s.id]);
  const readable = new Map<number, SensorInContext>();
  for (const id of new Set(groups.flat())) {
    const sensor = await getSensor(db, id);
    if (sensor && can(user, 'read', sensorAccess(sensor))) readable.set(id, sensor);
  }
  const rows = groups
    .map((ids) => ids.flatMap((id) => (readable.has(id) ? [readable.get(id)!] : [])))
    .filter((sensors) => sensors.length > 0)
    .map((sensors) => ({ title: sensors.map((s) => s.name).join(', '), sensors: sensors.map(chartSensor) }));
  return { rows, sensors: [...readable.values()] };
}

const chartSensor = (s: SensorInContext): ChartSensor => ({
  id: s.id,
  name: s.name,
  unit: s.unit,
  instantaneous: s.event_resolution_ms === 0,
  // Power sensors keep production positive unless their attribute says otherwise (see consumptionSign).
  ...(/^[kMG]?W$/.test(s.unit) && { positive: s.attributes.consumption_is_positive === true ? 'consumption' : 'production' }),
});

/** The site's time zone: that of the first sensor shown (assets have none of their own). */
const zoneOf = (sensors: SensorInContext[]) => sensors[0]?.timezone ?? 'UTC';

type ChartQuery = z.output<typeof chartQuery>;

async function chartAnswer(db: Knex, query: ChartQuery, rows: ChartRow[], sensors: SensorInContext[], title?: string) {
  const zone = zoneOf(sensors);
  const { startMs, endMs } = windowOf(query);
  return beliefChartSpec(rows, {
    zone,
    width: query.width ?? 'container',
    height: query.height ?? 220,
    datasetName: query['dataset-name'] ?? query.dataset_name ?? 'chart_data',
    records: (query['include-data'] ?? query.include_data) ? await chartRecords(db, sensors, query, zone) : undefined,
    title,
    domain: [wallClockMs(startMs, zone), wallClockMs(endMs, zone)],
  });
}

/** The reference declares these routes with a trailing slash and redirects the bare form. */
const slashRedirect = (path: string, summary: string) =>
  route({
    method: 'GET',
    path,
    summary,
    request: { params: idParams },
    command: async ({ ctx }) => {
      const target = `${ctx.path}/${ctx.querystring ? `?${ctx.querystring}` : ''}`;
      ctx.redirect(target);
      // Koa writes an HTML redirect page for browsers; clients decode every answer as JSON.
      return { message: `Redirecting to ${target}`, status: 308 as const };
    },
    response: {
      status: 308,
      schema: z.looseObject({ message: z.string(), status: z.literal(308) }),
      description: 'redirect to the path with its slash',
    },
  });

const assetToRead = async ({ db, params }: { db: Knex; params: { id: number } }) => ({ asset: await assetById(db, params.id, 'read') });
const sensorToRead = async ({ db, params }: { db: Knex; params: { id: number } }) => ({ sensor: await sensorById(db, params.id, 'read') });

/** Charts of assets and sensors: Vega-Lite specs and the records they draw. */
export const chartRoutes = [
  route({
    method: 'GET',
    path: '/assets/:id/chart/',
    summary: 'Download a chart with time series',
    request: { params: idParams, query: chartQuery },
    load: assetToRead,
    async command({ db, user, query, loaded: { asset } }) {
      const { rows, sensors } = await assetRows(db, user, asset);
      return chartAnswer(db, query, rows, sensors, asset.name);
    },
    response: { schema: wire.chartSpec },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/chart_data/',
    summary: 'Download time series for use in charts',
    request: { params: idParams, query: chartDataQuery },
    load: assetToRead,
    async command({ db, user, query, loaded: { asset } }) {
      const { sensors } = await assetRows(db, user, asset);
      return chartRecords(db, sensors, query, zoneOf(sensors));
    },
    response: { schema: z.array(wire.chartRecord) },
  }),
  slashRedirect('/assets/:id/chart', 'Redirect to /assets/<id>/chart/'),
  slashRedirect('/assets/:id/chart_data', 'Redirect to /assets/<id>/chart_data/'),
  route({
    method: 'GET',
    path: '/sensors/:id/chart/',
    summary: "Download a chart of a sensor's time series, one line per data source",
    request: { params: idParams, query: chartQuery },
    load: sensorToRead,
    command: ({ db, query, loaded: { sensor } }) =>
      chartAnswer(db, query, [{ title: sensor.name, sensors: [chartSensor(sensor)] }], [sensor]),
    response: { schema: wire.chartSpec },
  }),
  route({
    method: 'GET',
    path: '/sensors/:id/chart_data/',
    summary: "Download a sensor's time series for use in charts",
    request: { params: idParams, query: chartDataQuery },
    load: sensorToRead,
    command: ({ db, query, loaded: { sensor } }) => chartRecords(db, [sensor], query, sensor.timezone),
    response: { schema: z.array(wire.chartRecord) },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/chart_annotations',
    summary: 'Download annotations for use in charts',
    request: { params: idParams, query: annotationsQuery },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    async command({ db, query, loaded: { asset } }) {
      // 1.0 sets no default window here: without bounds every annotation is listed.
      const start = query.start ?? query.event_starts_after;
      const end = query.end ?? query.event_ends_before ?? (start && query.duration ? start.plus(query.duration.luxon) : undefined);
      const startMs = (start ?? (end && query.duration ? end.minus(query.duration.luxon) : undefined))?.toMillis();
      const endMs = end?.toMillis();
      const found = await assetAnnotations(
        db,
        { assetId: asset.id, accountId: asset.account_id },
        {
          afterMs: startMs,
          beforeMs: endMs,
          beliefsAfterMs: query.beliefs_after?.toMillis(),
          beliefsBeforeMs: (query.prior ?? query.beliefs_before)?.toMillis(),
        },
      );
      return chartAnnotations(found, { startMs, endMs, clip: query.clip ?? true });
    },
    response: {
      schema: z.array(
        z.object({
          index: z.number(),
          start: z.number(),
          end: z.number(),
          belief_time: z.number(),
          source: z.string(),
          type: z.string(),
          content: z.array(z.string()),
        }),
      ),
    },
  }),
];
