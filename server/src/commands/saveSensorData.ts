import type { Knex } from 'knex';
import type { UploadEvent } from '../domain/sensorData.ts';
import { recordBeliefs, type RecordResult } from '../store/beliefs.ts';
import { getOrCreateSource, type SourceProps } from '../store/sources.ts';

const PROGRESS_CHUNK = 10_000;

/** The events of one upload for one sensor. */
export interface SensorUpload {
  sensorId: number;
  events: readonly UploadEvent[];
}

/**
 * Stores the events of one upload as beliefs of one source, in one transaction: all of them or,
 * on a replacement that is not allowed (`ReplacementError`), none.
 * @param db the store.
 * @param props the sensor, the source (created on first use), the events, whether replacements
 *   overwrite, and a progress callback (which makes the work go in chunks).
 * @returns what was stored, and the id of the source.
 */
export async function saveSensorData(
  db: Knex,
  props: {
    sensorId: number;
    source: SourceProps;
    events: readonly UploadEvent[];
    allowOverwrite: boolean;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<RecordResult & { sourceId: number }> {
  const { sensorId, events, ...rest } = props;
  return saveUploads(db, { ...rest, uploads: [{ sensorId, events }] });
}

/**
 * Stores uploads for several sensors as beliefs of one source, in one transaction: all of them
 * or, on a replacement that is not allowed (`ReplacementError`), none.
 * @param db the store.
 * @param props the uploads, the source (created on first use), whether replacements overwrite,
 *   and a progress callback (which makes the work go in chunks).
 * @returns what was stored, and the id of the source.
 */
export async function saveUploads(
  db: Knex,
  props: {
    uploads: readonly SensorUpload[];
    source: SourceProps;
    allowOverwrite: boolean;
    onProgress?: (done: number, total: number) => void;
  },
): Promise<RecordResult & { sourceId: number }> {
  const { onProgress } = props;
  return db.transaction(async (trx) => {
    const source = await getOrCreateSource(trx, props.source);
    const total: RecordResult = { inserted: 0, unchanged: 0, replaced: 0 };
    // Plain literals, not spreads: an upload can hold half a million events.
    const all = props.uploads.flatMap((u) =>
      u.events.map((e) => ({ sensorId: u.sensorId, eventStartMs: e.eventStartMs, beliefTimeMs: e.beliefTimeMs, sourceId: source.id, value: e.value })),
    );
    // In event order, so that each chunk compares with what earlier chunks stored.
    const sorted = onProgress ? all.sort((a, b) => a.eventStartMs - b.eventStartMs) : all;
    const step = onProgress ? PROGRESS_CHUNK : Math.max(1, sorted.length);
    for (let i = 0; i < sorted.length; i += step) {
      const done = await recordBeliefs(trx, sorted.slice(i, i + step), { allowOverwrite: props.allowOverwrite });
      total.inserted += done.inserted;
      total.unchanged += done.unchanged;
      total.replaced += done.replaced;
      onProgress?.(Math.min(i + step, sorted.length), sorted.length);
    }
    return { ...total, sourceId: source.id };
  });
}

/** Whether an upload answers "already received": something was left out as unchanged, or nothing was new. */
export const alreadyReceived = (r: RecordResult) => r.unchanged > 0 || r.inserted + r.replaced === 0;
