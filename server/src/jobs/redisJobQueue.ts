import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { Queue, QueueEvents, Worker, type ConnectionOptions } from 'bullmq';
import type { Config } from '../config.ts';
import { redisNamespace } from '../redis.ts';
import type { EnqueueOptions, JobHandler, JobQueue, JobRecord } from './jobQueue.ts';
import { cacheKeyOf, JobTable, runAndRecord, wasInterrupted } from './jobTable.ts';

const QUEUE = 'jobs';
/**
 * A worker renews its lock on a running job every half of this; a killed worker's jobs are
 * found stalled by another worker within about this time and handed out again.
 */
const LOCK_MS = 10_000;
const SHUTDOWN_GRACE_MS = 15_000;
const SETTLED_POLL_MS = 100;

/**
 * The BullMQ queue for several processes: job records stay in the store's `job` table (so
 * `GET /jobs` reads them as with the in-process queue); Redis carries which job runs where. A job
 * whose worker dies is taken up once more by another worker, then fails as interrupted.
 * Identical triggers within the reuse window share one job across processes (BullMQ's
 * deduplication, keyed by the arguments).
 */
export class RedisJobQueue implements JobQueue {
  private table: JobTable;
  private queue: Queue;
  private events?: QueueEvents;
  private worker?: Worker;
  private timer?: NodeJS.Timeout;

  /**
   * @param handlers the job handlers when this process runs jobs (roles `all` and `worker`),
   *   null in an API-only process.
   */
  constructor(
    db: Knex,
    private config: Config,
    private log: Logger,
    private handlers: Record<string, JobHandler> | null,
    private onClose: () => Promise<void> = async () => {},
  ) {
    this.table = new JobTable(db, config);
    this.queue = new Queue(QUEUE, { connection: this.connection(), prefix: redisNamespace(this.config) });
  }

  private connection(): ConnectionOptions {
    // Commands wait for a reconnect instead of failing after a few retries (BullMQ's advice).
    return { url: this.config.redisUrl!, maxRetriesPerRequest: null } as ConnectionOptions;
  }

  async start(): Promise<void> {
    await this.queue.waitUntilReady();
    await this.table.housekeeping();
    this.timer = setInterval(() => void this.table.housekeeping(), 3600_000);
    this.timer.unref();
    if (!this.handlers) return;
    const handlers = this.handlers;
    this.worker = new Worker(
      QUEUE,
      async (bull) => {
        // A job delivered again after its worker died is still marked started in the store.
        const job = await this.table.claim(String(bull.id), ['queued', 'started']);
        // BullMQ hands jobs to the workers of every process in queue order; a turn is not given
        // away here (each process runs FLEXSITE_WORKER_THREADS jobs side by side instead).
        const runtime = { enqueue: this.enqueue.bind(this), yieldTurn: async () => {} };
        if (job) await runAndRecord(this.table, handlers, job, this.log, runtime);
      },
      {
        connection: this.connection(),
        prefix: redisNamespace(this.config),
        concurrency: this.config.workerThreads,
        lockDuration: LOCK_MS,
        stalledInterval: LOCK_MS,
        maxStalledCount: 1,
      },
    );
    this.worker.on('error', (err) => this.log.error({ err }, 'job queue failure'));
    this.worker.on('stalled', (id) => this.log.warn({ job: id }, 'job interrupted (its worker stopped); running it again'));
    // A job stalled a second time is failed by BullMQ in whichever worker noticed; every worker
    // hears of it and records it (the update only applies once).
    this.events = new QueueEvents(QUEUE, { connection: this.connection(), prefix: redisNamespace(this.config) });
    this.events.on('failed', ({ jobId, failedReason }) => {
      if (!/stalled/i.test(failedReason)) return;
      void this.table
        .failInterrupted([jobId], 'the worker running this job stopped, twice; trigger it again.')
        .catch((err: unknown) => this.log.error({ err }, 'job queue failure'));
    });
    await Promise.all([this.worker.waitUntilReady(), this.events.waitUntilReady()]);
  }

  async enqueue(queue: string, args: unknown, options: EnqueueOptions): Promise<JobRecord> {
    const cacheKey = cacheKeyOf(queue, args);
    const cached = await this.table.reusable(cacheKey, options);
    if (cached) return cached;
    const job = await this.table.insert(queue, args, cacheKey, options);
    const reuse = !options.force && options.reuseWithinS > 0;
    const add = () =>
      this.queue.add(
        queue,
        {},
        {
          jobId: job.id,
          // Another process may have queued the same arguments a moment ago: then that job is the one.
          ...(reuse ? { deduplication: { id: cacheKey, ttl: options.reuseWithinS * 1000 } } : {}),
          removeOnComplete: true,
          removeOnFail: true,
        },
      );
    const added = await add();
    if (added.id !== job.id) {
      const other = await this.table.get(String(added.id));
      if (other && !wasInterrupted(other)) {
        await this.table.remove(job.id);
        return other;
      }
      // The job it matched is gone or was interrupted: this trigger gets the new job.
      await this.queue.removeDeduplicationKey(cacheKey);
      await add();
    }
    return job;
  }

  get(id: string): Promise<JobRecord | undefined> {
    return this.table.get(id);
  }

  /** Jobs may end in another process: the store is watched until the job ends or time runs out. */
  async settled(id: string, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.get(id);
      if (!job || job.status === 'finished' || job.status === 'failed' || Date.now() >= until) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(SETTLED_POLL_MS, until - Date.now())));
    }
  }

  list(filter: { accountId?: number; limit: number }): Promise<JobRecord[]> {
    return this.table.list(filter);
  }

  async ping(): Promise<boolean> {
    // Any round trip will do; while Redis is away commands wait for it, hence the time limit.
    const answer = this.queue.getJobCountByTypes('wait').then(
      () => true,
      () => false,
    );
    return Promise.race([answer, new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 2000).unref())]);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.worker) {
      // Running jobs get a grace period; after it they are left to stall and another worker takes them.
      const finished = this.worker.close();
      const inTime = await Promise.race([
        finished.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), SHUTDOWN_GRACE_MS).unref()),
      ]);
      if (!inTime) await this.worker.close(true);
    }
    await this.events?.close();
    await this.queue.close();
    await this.onClose();
  }
}
