import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { EnqueueOptions, JobHandler, JobQueue, JobRecord } from './jobQueue.ts';

interface DbJob {
  id: string;
  queue: string;
  status: JobRecord['status'];
  args: string;
  cache_key: string;
  account_id: number | null;
  sensor_id: number | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  attempts: number;
  result: string | null;
  error: string | null;
  fallback_job_id: string | null;
}

const fromRow = (r: DbJob): JobRecord => ({
  id: r.id,
  queue: r.queue,
  status: r.status,
  args: JSON.parse(r.args),
  accountId: r.account_id,
  sensorId: r.sensor_id,
  createdAt: Number(r.created_at),
  startedAt: r.started_at === null ? null : Number(r.started_at),
  finishedAt: r.finished_at === null ? null : Number(r.finished_at),
  attempts: r.attempts,
  result: r.result ? JSON.parse(r.result) : null,
  error: r.error,
  fallbackJobId: r.fallback_job_id,
});

/** Stable JSON: object keys sorted, so equal arguments hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    return `{${entries.sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

const MAX_ATTEMPTS = 2;
/** The error name of a job that failed because the server stopped under it. */
const INTERRUPTED = 'JobInterrupted';
const SHUTDOWN_GRACE_MS = 15_000;

/**
 * The in-process queue: jobs live in the `job` table, `concurrency` run at a time. A restart
 * puts interrupted jobs back in the queue once; a job interrupted twice fails with a message.
 */
export class LocalJobQueue implements JobQueue {
  private running = new Map<string, Promise<void>>();
  private waiters = new Map<string, (() => void)[]>();
  private closing = false;
  private timer: NodeJS.Timeout;

  constructor(
    private db: Knex,
    private config: Config,
    private log: Logger,
    private handlers: Record<string, JobHandler>,
    private onClose: () => Promise<void> = async () => {},
  ) {
    // Housekeeping every hour: expire stale queued jobs, forget old finished ones.
    this.timer = setInterval(() => void this.housekeeping(), 3600_000);
    this.timer.unref();
  }

  /** Recovers jobs a previous process left behind, then starts working. */
  async start(): Promise<void> {
    await this.db('job')
      .where({ status: 'started' })
      .andWhere('attempts', '>=', MAX_ATTEMPTS)
      .update({
        status: 'failed',
        finished_at: Date.now(),
        error: `${INTERRUPTED}: the server stopped while this job ran, twice; trigger it again.`,
      });
    const resumed = await this.db('job').where({ status: 'started' }).update({ status: 'queued', started_at: null });
    if (resumed) this.log.warn({ jobs: resumed }, 'resuming jobs interrupted by a restart');
    await this.housekeeping();
    this.pump();
  }

  async enqueue(queue: string, args: unknown, options: EnqueueOptions): Promise<JobRecord> {
    const cacheKey = crypto.createHash('sha256').update(`${queue}:${canonical(args)}`).digest('hex');
    const now = Date.now();
    if (!options.force && options.reuseWithinS > 0) {
      const cached = await this.db<DbJob>('job')
        .where({ cache_key: cacheKey })
        .andWhere('created_at', '>', now - options.reuseWithinS * 1000)
        // An interrupted job says "trigger it again": that trigger gets a new job.
        .andWhereNot((q) => q.where({ status: 'failed' }).andWhere('error', 'like', `${INTERRUPTED}:%`))
        .orderBy('created_at', 'desc')
        .first();
      if (cached) return fromRow(cached);
    }
    const row = {
      id: crypto.randomUUID(),
      queue,
      status: 'queued' as const,
      args: JSON.stringify(args),
      cache_key: cacheKey,
      account_id: options.accountId,
      sensor_id: options.sensorId,
      created_at: now,
      attempts: 0,
    };
    await this.db('job').insert(row);
    this.pump();
    return (await this.get(row.id))!;
  }

  async enqueueFallback(failedJobId: string, queue: string, args: unknown): Promise<JobRecord> {
    const failed = await this.get(failedJobId);
    const job = await this.enqueue(queue, args, {
      accountId: failed?.accountId ?? null,
      sensorId: failed?.sensorId ?? null,
      reuseWithinS: 0,
      force: true,
    });
    await this.db('job').where({ id: failedJobId }).update({ fallback_job_id: job.id });
    return job;
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const row = await this.db<DbJob>('job').where({ id }).first();
    return row && fromRow(row);
  }

  async settled(id: string, timeoutMs: number): Promise<void> {
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    // Listen before looking, so a job that ends in between is not missed.
    this.waiters.set(id, [...(this.waiters.get(id) ?? []), wake]);
    const job = await this.get(id);
    if (job && job.status !== 'finished' && job.status !== 'failed') {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([woken, new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
      clearTimeout(timer);
    }
    const left = (this.waiters.get(id) ?? []).filter((w) => w !== wake);
    if (left.length) this.waiters.set(id, left);
    else this.waiters.delete(id);
  }

  async list(filter: { accountId?: number; limit: number }): Promise<JobRecord[]> {
    const q = this.db<DbJob>('job').orderBy('created_at', 'desc').limit(filter.limit);
    if (filter.accountId !== undefined) q.where({ account_id: filter.accountId });
    return (await q).map(fromRow);
  }

  async ping(): Promise<undefined> {
    // Jobs live in the SQL store, whose readiness is reported as database_sql.
    return undefined;
  }

  async close(): Promise<void> {
    this.closing = true;
    clearInterval(this.timer);
    const grace = new Promise((resolve) => setTimeout(resolve, SHUTDOWN_GRACE_MS).unref());
    await Promise.race([Promise.allSettled([...this.running.values()]), grace]);
    if (this.running.size) {
      // Still running after the grace period: hand them back to the queue for the next start.
      await this.db('job').whereIn('id', [...this.running.keys()]).update({ status: 'queued', started_at: null });
      this.log.warn({ jobs: [...this.running.keys()] }, 're-queued jobs still running at shutdown');
    }
    await this.onClose();
  }

  /** Starts queued jobs while there is capacity. */
  private pump(): void {
    if (this.closing) return;
    void this.claimAndRun().catch((err: unknown) => this.log.error({ err }, 'job queue failure'));
  }

  private async claimAndRun(): Promise<void> {
    while (!this.closing && this.running.size < this.config.workerThreads) {
      const job = await this.db.transaction(async (trx) => {
        const next = await trx<DbJob>('job').where({ status: 'queued' }).orderBy('created_at').first();
        if (!next) return undefined;
        const startedAt = Date.now();
        // Conditional on still being queued: on a pooled engine another claim may have won.
        const claimed = await trx('job')
          .where({ id: next.id, status: 'queued' })
          .update({ status: 'started', started_at: startedAt, attempts: next.attempts + 1 });
        if (!claimed) return null;
        return fromRow({ ...next, status: 'started', started_at: startedAt, attempts: next.attempts + 1 });
      });
      if (job === undefined) return;
      if (job === null) continue;
      const run = this.execute(job).finally(() => {
        this.running.delete(job.id);
        this.pump();
      });
      this.running.set(job.id, run);
    }
  }

  private async execute(job: JobRecord): Promise<void> {
    const handler = this.handlers[job.queue];
    let update: Partial<DbJob>;
    try {
      if (!handler) throw new Error(`no handler for queue ${job.queue}`);
      const result = await handler(job);
      update = { status: 'finished', result: JSON.stringify(result), finished_at: Date.now() };
      this.log.info({ job: job.id, ms: Date.now() - (job.startedAt ?? Date.now()) }, 'job finished');
    } catch (err) {
      const e = err instanceof Error ? err : new Error(String(err));
      update = { status: 'failed', error: `${e.name}: ${e.message}`, finished_at: Date.now() };
      this.log.warn({ job: job.id, error: update.error }, 'job failed');
    }
    // A job re-queued at shutdown must not be marked done by its late result.
    if (this.closing && !this.running.has(job.id)) return;
    await this.db('job').where({ id: job.id, status: 'started' }).update(update);
    for (const wake of this.waiters.get(job.id) ?? []) wake();
    this.waiters.delete(job.id);
  }

  private async housekeeping(): Promise<void> {
    const now = Date.now();
    await this.db('job').where({ status: 'queued' }).andWhere('created_at', '<', now - this.config.jobTtlMs).delete();
    await this.db('job')
      .whereIn('status', ['finished', 'failed'])
      .andWhere('finished_at', '<', now - this.config.planningTtlMs)
      .delete();
  }
}
