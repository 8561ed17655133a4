import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { EnqueueOptions, JobHandler, JobQueue, JobRecord } from './jobQueue.ts';
import { cacheKeyOf, JobTable, runAndRecord } from './jobTable.ts';

const SHUTDOWN_GRACE_MS = 15_000;

/**
 * The in-process queue: jobs live in the `job` table, `concurrency` run at a time. A restart
 * puts interrupted jobs back in the queue once; a job interrupted twice fails with a message.
 */
export class LocalJobQueue implements JobQueue {
  private table: JobTable;
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
    this.table = new JobTable(db, config);
    // Housekeeping every hour: expire stale queued jobs, forget old finished ones.
    this.timer = setInterval(() => void this.table.housekeeping(), 3600_000);
    this.timer.unref();
  }

  /** Recovers jobs a previous process left behind, then starts working. */
  async start(): Promise<void> {
    await this.table.failInterrupted('retried', 'the server stopped while this job ran, twice; trigger it again.');
    const resumed = await this.table.requeue('all');
    if (resumed) this.log.warn({ jobs: resumed }, 'resuming jobs interrupted by a restart');
    await this.table.housekeeping();
    this.pump();
  }

  async enqueue(queue: string, args: unknown, options: EnqueueOptions): Promise<JobRecord> {
    const cacheKey = cacheKeyOf(queue, args);
    const cached = await this.table.reusable(cacheKey, options);
    if (cached) return cached;
    const job = await this.table.insert(queue, args, cacheKey, options);
    this.pump();
    return job;
  }

  get(id: string): Promise<JobRecord | undefined> {
    return this.table.get(id);
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

  list(filter: { accountId?: number; limit: number }): Promise<JobRecord[]> {
    return this.table.list(filter);
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
      // Still running after the grace period: hand them back to the queue for the next start
      // (their late results are then not recorded, as they are no longer started).
      await this.table.requeue([...this.running.keys()]);
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
      const next = await this.db('job').where({ status: 'queued' }).orderBy('created_at').first('id');
      if (!next) return;
      const job = await this.table.claim(next.id);
      if (!job) continue;
      const run = runAndRecord(this.table, this.handlers, job, this.log, this).finally(() => {
        this.running.delete(job.id);
        for (const wake of this.waiters.get(job.id) ?? []) wake();
        this.waiters.delete(job.id);
        this.pump();
      });
      this.running.set(job.id, run);
    }
  }
}
