import type { Knex } from 'knex';
import { z } from 'zod';
import { awareDateTime, boolText, fixedDurationMs } from '../../contracts/fields.ts';
import { beliefChartSpec, isoInZone, wallClockMs, type ChartRecord } from '../../charts/beliefChart.ts';
import { resampleToGrid } from '../../domain/resample.ts';
import { isPowerUnit, isStockUnit } from '../../domain/units.ts';
import { fieldError } from '../../errors.ts';
import * as wire from '../../contracts/responses.ts';
import { unplacedRoute } from '../../http/routes.ts';
import { consumptionSign } from '../../scheduling/buildProblem.ts';
import { mostRecentBeliefs, type StoredBelief } from '../../store/beliefs.ts';
import { findSensorsByName } from '../../store/sensorSearch.ts';
import { getSensor, type SensorInContext } from '../../store/sensors.ts';
import { listSources, type DataSource } from '../../store/sources.ts';
import { sensorNeeds } from '../load.ts';
import type { LegacyCall } from './message.ts';

/**
 * Version 2.0's power chart: a Vega-Lite chart item of one device's power (a 2.0 asset, by id
 * or name) with every source's values, measurements, forecasts and schedules alike.
 */

const DAY_MS = 86_400_000;
const MAX_WINDOW_MS = 366 * DAY_MS;

const chartQuery = z.object({
  resource: z.string().min(1).max(255),
  start_time: awareDateTime.optional(),
  end_time: awareDateTime.optional(),
  resolution: fixedDurationMs.refine((ms) => ms > 0, { error: 'Must be greater than 0.' }).optional(),
  consumption_as_positive: boolText.optional(),
  show_individual_traces_for: z.enum(['none', 'power', 'schedules']).optional(),
});

/** The device the chart is about: a power sensor by id, or by name in the caller's account. */
async function resourceSensor({ db, user }: LegacyCall, resource: string): Promise<SensorInContext> {
  const byId = /^\d{1,15}$/.test(resource) ? await getSensor(db, Number(resource)) : undefined;
  const sensor = byId ?? (await findSensorsByName(db, { names: [resource], owners: [user.account_id] })).find((s) => isPowerUnit(s.unit));
  if (!sensor || !isPowerUnit(sensor.unit)) throw fieldError('query', 'resource', `No asset with id or name '${resource}' is known.`);
  return sensor;
}

/** The window: the given bounds; without them, the last six days and the coming one. */
function windowOf(query: z.output<typeof chartQuery>): { startMs: number; endMs: number } {
  const endMs = query.end_time?.toMillis() ?? (query.start_time ? query.start_time.toMillis() + 7 * DAY_MS : Date.now() + DAY_MS);
  const startMs = query.start_time?.toMillis() ?? endMs - 7 * DAY_MS;
  if (endMs <= startMs) throw fieldError('query', 'end_time', 'Must be later than start_time.');
  if (endMs - startMs > MAX_WINDOW_MS) throw fieldError('query', 'end_time', 'A chart covers at most 366 days.');
  return { startMs, endMs };
}

/** Each source's beliefs, resampled to the resolution when one is asked for. */
function perSource(beliefs: StoredBelief[], sensor: SensorInContext, window: { startMs: number; endMs: number }, stepMs?: number) {
  const bySource = new Map<number, StoredBelief[]>();
  for (const b of beliefs) {
    const list = bySource.get(b.sourceId);
    if (list) list.push(b);
    else bySource.set(b.sourceId, [b]);
  }
  if (!stepMs) return bySource;
  const grid = { ...window, stepMs, eventResolutionMs: sensor.event_resolution_ms, stock: isStockUnit(sensor.unit) };
  for (const [sourceId, list] of bySource) {
    const values = resampleToGrid(list, grid);
    const beliefTimeMs = Math.max(...list.map((b) => b.beliefTimeMs));
    bySource.set(
      sourceId,
      values.flatMap((value, i) => (value === null ? [] : [{ eventStartMs: window.startMs + i * stepMs, value, sourceId, beliefTimeMs }])),
    );
  }
  return bySource;
}

/** A chart of a device's power (a sensor the caller may read). */
const powerChart = unplacedRoute({
  summary: 'Download a power chart of an asset',
  request: { query: chartQuery },
  load: async (call) => ({ sensor: sensorNeeds(await resourceSensor(call, call.query.resource), 'read') }),
  command: ({ db, query, loaded: { sensor } }) => chart(db, sensor, query),
  response: { schema: wire.chartSpec },
});

async function chart(db: Knex, sensor: SensorInContext, query: z.output<typeof chartQuery>) {
  const window = windowOf(query);
  const beliefs = await mostRecentBeliefs(db, { sensorId: sensor.id, ...window, perSource: true });
  const series = perSource(beliefs, sensor, window, query.resolution);
  const sources = new Map((series.size ? await listSources(db, { ids: [...series.keys()] }) : []).map((s) => [s.id, s]));
  // Consumption positive by default, as the message API counts it.
  const sign = query.consumption_as_positive === false ? 1 : consumptionSign(sensor);
  const traces = query.show_individual_traces_for ?? 'none';
  // Individual traces name each source; otherwise sources are drawn per kind.
  const label = (source: DataSource | undefined) => {
    const scheduler = source?.type === 'scheduler';
    const individual = traces === 'power' ? !scheduler : traces === 'schedules' && scheduler;
    if (individual) return source?.name ?? 'unknown source';
    return scheduler ? 'schedules' : source?.type === 'forecaster' ? 'forecasts' : 'measurements';
  };
  const zone = sensor.timezone;
  const records: ChartRecord[] = [...series].flatMap(([sourceId, list]) =>
    list.map((b) => {
      const source = sources.get(sourceId);
      return {
        sensor_id: sensor.id,
        sensor: sensor.name,
        unit: sensor.unit,
        event_start: isoInZone(b.eventStartMs, zone),
        event_value: sign * b.value,
        belief_time: isoInZone(b.beliefTimeMs, zone),
        source: label(source),
        source_id: sourceId,
        source_type: source?.type ?? '',
        local_time: wallClockMs(b.eventStartMs, zone),
      };
    }),
  );
  return beliefChartSpec(
    [{ title: sensor.name, sensors: [{ id: sensor.id, name: sensor.name, unit: sensor.unit, instantaneous: false }] }],
    {
      zone,
      width: 'container',
      height: 300,
      datasetName: 'power',
      records,
      title: `Power of ${sensor.name}`,
    },
  );
}

/** The 2.0 chart endpoint, by method and route. */
export const v2ChartEndpoints = { 'GET charts/power': () => powerChart };
