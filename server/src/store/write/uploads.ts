import type { Knex } from 'knex';
import type { UploadEvent } from '../../domain/sensorData.ts';
import { ReplacementError, type BeliefInput, type RecordResult } from '../beliefs.ts';
import { recordBeliefs, recordBeliefSets } from './beliefs.ts';
import { findSource, type SourceProps } from '../sources.ts';
import { getOrCreateSource } from './sources.ts';

/**
 * Uploads of sensor data written as beliefs of one source: alone in a transaction (a large import,
 * in chunks with progress) or together with the uploads that arrive at the same time (group
 * commit). Who may write what is the command's (commands/storeSensorData.ts); this is the write.
 */

const PROGRESS_CHUNK = 10_000;

/** The events of one upload for one sensor. */
export interface SensorUpload {
  sensorId: number;
  /** The sensor's event resolution, when the caller has the sensor loaded (saves reading it again). */
  eventResolutionMs?: number;
  events: readonly UploadEvent[];
}

/** What to store: uploads as beliefs of one source. */
interface UploadsProps {
  uploads: readonly SensorUpload[];
  source: SourceProps;
  allowOverwrite: boolean;
}

/** What an upload stored, and the id of its source. */
export type StoredUploads = RecordResult & { sourceId: number };

/**
 * Stores uploads for several sensors as beliefs of one source, in a transaction of their own: all
 * of them or, on a replacement that is not allowed (`ReplacementError`), none.
 * @param db the store.
 * @param props the uploads, the source (created on first use), whether replacements overwrite,
 *   and a progress callback (which makes the work go in chunks).
 * @returns what was stored, and the id of the source.
 */
export async function saveUploads(
  db: Knex,
  props: UploadsProps & { onProgress?: (done: number, total: number) => void },
): Promise<StoredUploads> {
  return db.transaction(async (trx) => {
    const source = await getOrCreateSource(trx, props.source);
    return { ...(await recordUploads(trx, props, source.id, props.onProgress)), sourceId: source.id };
  });
}

/** Records the uploads as beliefs of the source in the caller's transaction; see `recordBeliefs`. */
async function recordUploads(
  trx: Knex.Transaction,
  props: UploadsProps,
  sourceId: number,
  onProgress?: (done: number, total: number) => void,
): Promise<RecordResult> {
  const total: RecordResult = { inserted: 0, unchanged: 0, replaced: 0 };
  const resolutions = knownResolutions([props]);
  const all = beliefRows(props, sourceId);
  // In event order, so that each chunk compares with what earlier chunks stored.
  const sorted = onProgress ? all.sort((a, b) => a.eventStartMs - b.eventStartMs) : all;
  const step = onProgress ? PROGRESS_CHUNK : Math.max(1, sorted.length);
  for (let i = 0; i < sorted.length; i += step) {
    const done = await recordBeliefs(trx, sorted.slice(i, i + step), { allowOverwrite: props.allowOverwrite, resolutions });
    total.inserted += done.inserted;
    total.unchanged += done.unchanged;
    total.replaced += done.replaced;
    onProgress?.(Math.min(i + step, sorted.length), sorted.length);
  }
  return total;
}

/** The events of uploads as beliefs of one source. */
function beliefRows(props: UploadsProps, sourceId: number): BeliefInput[] {
  // Plain literals, not spreads: an upload can hold half a million events.
  return props.uploads.flatMap((u) =>
    u.events.map((e) => ({ sensorId: u.sensorId, eventStartMs: e.eventStartMs, beliefTimeMs: e.beliefTimeMs, sourceId, value: e.value })),
  );
}

/** The event resolutions of the sensors the callers have loaded. */
function knownResolutions(uploads: readonly UploadsProps[]): Map<number, number> {
  const resolutions = new Map<number, number>();
  for (const props of uploads)
    for (const u of props.uploads) if (u.eventResolutionMs !== undefined) resolutions.set(u.sensorId, u.eventResolutionMs);
  return resolutions;
}

// A batch is bounded so that an upload waits for at most one transaction of bounded size.
const MAX_BATCH_UPLOADS = 256;
const MAX_BATCH_VALUES = 200_000;
const MAX_RECORDED_PAIRS = 100_000;

interface Job extends UploadsProps {
  values: number;
  resolve(saved: StoredUploads): void;
  reject(err: unknown): void;
}

/**
 * Group commit: uploads that arrive while a write transaction runs are committed together in
 * the next one, each answering its own result. Nothing is answered before its transaction has
 * committed.
 */
class UploadQueue {
  private waiting: Job[] = [];
  private draining = false;
  /**
   * Sensor/source pairs committed to sensor_source: a pair goes only with its sensor or source,
   * whose ids are never used again, so a known pair is not written again.
   */
  private recordedPairs = new Set<string>();

  constructor(private readonly db: Knex) {}

  submit(props: UploadsProps): Promise<StoredUploads> {
    return new Promise((resolve, reject) => {
      const values = props.uploads.reduce((n, u) => n + u.events.length, 0);
      this.waiting.push({ ...props, values, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        // Uploads parsed in the same turn of the event loop join the first transaction.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length) {
      let values = this.waiting[0].values;
      let n = 1;
      const { allowOverwrite } = this.waiting[0];
      while (
        n < this.waiting.length &&
        n < MAX_BATCH_UPLOADS &&
        values + this.waiting[n].values <= MAX_BATCH_VALUES &&
        this.waiting[n].allowOverwrite === allowOverwrite
      )
        values += this.waiting[n++].values;
      await this.commit(this.waiting.splice(0, n));
    }
    this.draining = false;
  }

  private async commit(batch: Job[]): Promise<void> {
    const outcomes = new Map<Job, StoredUploads | ReplacementError>();
    // An upload whose source does not exist yet creates it, which must roll back with the upload
    // alone: such (first) uploads get a transaction of their own.
    const alone: Job[] = [];
    try {
      await this.db.transaction(async (trx) => {
        const sources = new Map<string, number | undefined>();
        const ready: { job: Job; sourceId: number }[] = [];
        for (const job of batch) {
          const key = JSON.stringify(job.source);
          if (!sources.has(key)) sources.set(key, (await findSource(trx, job.source))?.id);
          const sourceId = sources.get(key);
          if (sourceId === undefined) alone.push(job);
          else ready.push({ job, sourceId });
        }
        if (!ready.length) return;
        // Each upload is a set of its own: `recordBeliefSets` refuses a set before it writes any
        // of it, so the others can still commit.
        const results = await recordBeliefSets(
          trx,
          ready.map(({ job, sourceId }) => beliefRows(job, sourceId)),
          { allowOverwrite: batch[0].allowOverwrite, resolutions: knownResolutions(batch), recordedPairs: this.recordedPairs },
        );
        for (const [k, { job, sourceId }] of ready.entries()) {
          const result = results[k];
          outcomes.set(job, result instanceof ReplacementError ? result : { ...result, sourceId });
        }
      });
    } catch (err) {
      if (batch.length === 1) return batch[0].reject(err);
      // Anything else than a refused replacement: each upload again on its own, so that it fails alone.
      outcomes.clear();
      alone.splice(0, alone.length, ...batch);
    }
    for (const [job, outcome] of outcomes) {
      if (outcome instanceof ReplacementError) job.reject(outcome);
      else {
        if (this.recordedPairs.size >= MAX_RECORDED_PAIRS) this.recordedPairs.clear();
        for (const u of job.uploads) if (u.events.length) this.recordedPairs.add(`${u.sensorId}/${outcome.sourceId}`);
        job.resolve(outcome);
      }
    }
    for (const job of alone) await saveUploads(this.db, job).then(job.resolve, job.reject);
  }
}

const queues = new WeakMap<Knex, UploadQueue>();

/**
 * Stores uploads for several sensors as beliefs of one source, all or, on a replacement that is
 * not allowed (`ReplacementError`), none, sharing a transaction with the uploads that arrive at
 * the same time (group commit). Resolves once the transaction has committed.
 * @param db the store.
 * @param props the uploads, the source (created on first use), whether replacements overwrite.
 * @returns what was stored, and the id of the source.
 */
export function commitUploads(db: Knex, props: UploadsProps): Promise<StoredUploads> {
  let queue = queues.get(db);
  if (!queue) queues.set(db, (queue = new UploadQueue(db)));
  return queue.submit(props);
}
