import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { descendantIds, getAsset, getAssetType } from '../store/assets.ts';
import { lastMeasurement, lastUpload, measuredIntervals, staleAfterMs } from '../store/lastMeasurements.ts';
import { malformedBySensor, type MalformedMessages } from '../store/mqttLinks.ts';
import { listSensors } from '../store/sensors.ts';
import { negativeAllDay, signConvention } from './loadSign.ts';
import { powerFlow, type FlowInput } from './powerFlow.ts';

/** How far back "last upload" looks. */
const UPLOAD_WINDOW_MS = 7 * 86_400_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * What a site's sensors say now: per sensor of the asset and the assets below it, the latest
 * measurement with its age, and the data's health: stale when the latest measurement ended longer
 * ago than `staleAfterMs` allows (twice the resolution; `instantStaleMs` for instantaneous sensors), the intervals of today (in the sensor's zone) that have
 * ended without a measurement, the last upload with its source, and for a sensor fed by MQTT device
 * links the payloads they could not read (how many, and when the last came). Power sensors say how
 * their values are signed, and whether they produced all through yesterday (a load's sign trap).
 */
export async function siteNow(db: Knex, assetId: number, nowMs: number, instantStaleMs: number) {
  const assetIds = await descendantIds(db, assetId);
  const sensors = [];
  const flow: FlowInput[] = [];
  // The site's zone is its sensors' (as the money figures read it); null for a site without sensors.
  let timezone: string | null = null;
  for (const id of assetIds) {
    const asset = (await getAsset(db, id))!;
    const assetType = (await getAssetType(db, asset.generic_asset_type_id))?.name ?? '';
    const assetSensors = await listSensors(db, { assetId: id });
    const malformed = await malformedBySensor(
      db,
      assetSensors.map((s) => s.id),
    );
    for (const s of assetSensors) {
      timezone ??= s.timezone;
      const res = s.event_resolution_ms;
      const last = await lastMeasurement(db, s.id, nowMs);
      const endMs = last && last.eventStartMs + res;
      const dayStart = DateTime.fromMillis(nowMs, { zone: s.timezone }).startOf('day').toMillis();
      const ended = res > 0 ? Math.floor((nowMs - dayStart) / res) : 0;
      const upload = await lastUpload(db, s.id, nowMs - UPLOAD_WINDOW_MS);
      const staleMs = staleAfterMs(res, instantStaleMs);
      // Never-measured sensors have nothing to judge by.
      const stale = endMs !== undefined && nowMs - endMs > staleMs;
      flow.push({
        sensor: s,
        assetType,
        isSite: id === assetId,
        latest: last && endMs !== undefined ? { value: last.value, endMs } : null,
        stale,
      });
      sensors.push({
        id: s.id,
        name: s.name,
        unit: s.unit,
        sign: signConvention(s),
        asset: asset.name,
        resolution_minutes: res / 60_000,
        latest:
          last && endMs !== undefined
            ? { event_start: iso(last.eventStartMs), value: last.value, age_seconds: Math.max(0, Math.round((nowMs - endMs) / 1000)) }
            : null,
        stale,
        stale_after_minutes: staleMs / 60_000,
        gaps_today: res > 0 ? ended - (await measuredIntervals(db, s.id, dayStart, dayStart + ended * res)) : null,
        last_upload: upload ? { at: iso(upload.atMs), source: upload.source } : null,
        malformed_messages: malformedMessages(malformed.get(s.id)),
        negative_all_day: await negativeAllDay(db, s, nowMs),
      });
    }
  }
  return { asset_id: assetId, now: iso(nowMs), timezone, sensors, flow: powerFlow(flow) };
}

/** A sensor's malformed device messages as the API gives them; null for a sensor no device link feeds. */
function malformedMessages(m: MalformedMessages | undefined) {
  return m ? { count: m.count, last_at: m.lastAtMs === null ? null : iso(m.lastAtMs) } : null;
}
