import type { Knex } from 'knex';
import type { UploadEvent } from '../domain/sensorData.ts';
import { recordBeliefs, type RecordResult } from '../store/beliefs.ts';
import { getOrCreateSource, type SourceProps } from '../store/sources.ts';

const PROGRESS_CHUNK = 10_000;

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
  const { events, onProgress } = props;
  return db.transaction(async (trx) => {
    const source = await getOrCreateSource(trx, props.source);
    const total: RecordResult = { inserted: 0, unchanged: 0, replaced: 0 };
    // In event order, so that each chunk compares with what earlier chunks stored.
    const sorted = onProgress ? [...events].sort((a, b) => a.eventStartMs - b.eventStartMs) : events;
    const step = onProgress ? PROGRESS_CHUNK : Math.max(1, sorted.length);
    for (let i = 0; i < sorted.length; i += step) {
      const rows = sorted.slice(i, i + step).map((e) => ({ ...e, sensorId: props.sensorId, sourceId: source.id }));
      const done = await recordBeliefs(trx, rows, { allowOverwrite: props.allowOverwrite });
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
