import { z } from 'zod';
import { precisedelta } from '../../domain/precisedelta.ts';
import { formatResolution, parseIsoDuration } from '../../domain/time.ts';
import { route } from '../../http/routes.ts';
import { getAsset, type Asset } from '../../store/assets.ts';
import type { SensorInContext } from '../../store/sensors.ts';
import { latestEventsBySourceType, type LatestEvents } from '../../store/sensorStatus.ts';
import { idParams, sensorById } from '../load.ts';

/**
 * GET /sensors/<id>/status (FlexMeasures 1.0): whether the sensor's data is stale, per source
 * type. Recorded data (users, scripts, reporters, …) is judged by when its latest event could be
 * known, its end; schedules and forecasts by how far their latest event lies in the future.
 */

/** The source types judged, in 1.0's order. */
const SOURCE_TYPES = ['user', 'scheduler', 'forecaster', 'reporter', 'demo script', 'gateway', 'market'];
const FUTURE_TYPES = new Set(['scheduler', 'forecaster']);
/** Schedules and forecasts are stale when they reach less than 12 hours ahead. */
const MAX_FUTURE_STALENESS_MS = -12 * 3_600_000;

/** A duration attribute (`status_specs`), else the default. */
function specMs(value: unknown, fallback: number): number {
  if (typeof value !== 'string') return fallback;
  const d = parseIsoDuration(value);
  return typeof d === 'string' || d.nominal ? fallback : d.ms;
}

/** An instant as Python's `isoformat()` writes it in UTC. */
const isoformat = (ms: number) => {
  const iso = new Date(ms).toISOString();
  const millis = iso.slice(20, 23);
  return iso.slice(0, 19) + (millis === '000' ? '' : `.${millis}000`) + '+00:00';
};

interface Status {
  staleness: string | null;
  stale: boolean;
  staleness_since: string | null;
  reason: string;
  source_type: string | null;
}

function status(latest: LatestEvents | undefined, sensor: SensorInContext, nowMs: number): Status {
  if (!latest) return { staleness: null, stale: true, staleness_since: null, reason: 'no data recorded', source_type: null };
  const specs = (sensor.attributes.status_specs ?? {}) as Record<string, unknown>;
  const maxStaleness = specMs(specs.max_staleness, 2 * sensor.event_resolution_ms);
  const maxFutureStaleness = specMs(specs.max_future_staleness, MAX_FUTURE_STALENESS_MS);
  const future = FUTURE_TYPES.has(latest.sourceType);
  if (future && latest.latestFutureStartMs === null) {
    return {
      staleness: null,
      stale: true,
      staleness_since: isoformat(latest.latestStartMs),
      reason: 'Found no future data which this source should have',
      source_type: latest.sourceType,
    };
  }
  // Recorded data could be known once its latest event ended.
  const sinceMs = future ? latest.latestFutureStartMs! : latest.latestStartMs + sensor.event_resolution_ms;
  const staleness = nowMs - sinceMs;
  const past = staleness > 0;
  const max = past ? maxStaleness : maxFutureStaleness;
  const stale = staleness > max;
  const timeline = past ? 'old' : 'in the future';
  const judged = past ? (stale ? 'but should not be more' : 'which is not more') : stale ? 'but should be more' : 'which is not less';
  return {
    staleness: formatResolution(Math.abs(staleness)),
    stale,
    staleness_since: isoformat(sinceMs),
    reason: `most recent data is ${precisedelta(Math.abs(staleness))} ${timeline}, ${judged} than ${precisedelta(Math.abs(max))} ${timeline}`,
    source_type: latest.sourceType,
  };
}

/** How the sensor relates to its asset: its own, and where the asset's flex-context names it. */
function relation(asset: Asset, sensor: SensorInContext): string {
  const relations = ['sensor belongs to this asset'];
  const context = asset.flex_context;
  const names = (v: unknown) => (typeof v === 'number' ? v : (v as { sensor?: unknown } | null)?.sensor) === sensor.id;
  const inflexible = ['inflexible-device-sensors', 'inflexible-consumption', 'inflexible-production'];
  if (inflexible.some((key) => Array.isArray(context[key]) && (context[key] as unknown[]).some(names))) {
    relations.push('flex context (inflexible device)');
  }
  for (const [field, value] of Object.entries(context)) {
    if (!inflexible.includes(field) && value && typeof value === 'object' && !Array.isArray(value) && names(value)) {
      relations.push(`flex context (${field})`);
    }
  }
  return relations.join(';');
}

const sensorStatusAnswer = z.object({
  sensors_data: z.array(
    z.object({
      staleness: z.string().nullable(),
      stale: z.boolean(),
      staleness_since: z.string().nullable(),
      reason: z.string(),
      source_type: z.string().nullable(),
      id: z.number(),
      name: z.string(),
      resolution: z.string(),
      asset_name: z.string(),
      relation: z.string(),
    }),
  ),
});

export const sensorStatusRoutes = [
  route({
    method: 'GET',
    path: '/sensors/:id/status',
    summary: 'Get sensor status',
    request: { params: idParams },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'read') }),
    async command({ ctx, db, loaded: { sensor } }) {
      const nowMs = ctx.services.clock.now();
      const latest = await latestEventsBySourceType(db, sensor.id, nowMs);
      const judged = SOURCE_TYPES.flatMap((type) => latest.filter((l) => l.sourceType === type));
      const asset = (await getAsset(db, sensor.generic_asset_id))!;
      const common = {
        id: sensor.id,
        name: sensor.name,
        resolution: formatResolution(sensor.event_resolution_ms),
        asset_name: asset.name,
        relation: relation(asset, sensor),
      };
      const statuses = judged.length ? judged.map((l) => status(l, sensor, nowMs)) : [status(undefined, sensor, nowMs)];
      return { sensors_data: statuses.map((s) => ({ ...s, ...common })) };
    },
    response: { schema: sensorStatusAnswer },
  }),
];
