import { Queue, QueueEvents, WaitingError, Worker, type ConnectionOptions, type Job as BullJob } from 'bullmq';
import { redisNamespace } from '../redis.ts';
import { SPARE_SLOTS, type EnqueueOptions, type JobHandlers, type JobQueue, type JobRecord, type JobTypes } from './jobQueue.ts';
import { cacheKeyOf, runAndRecord, wasInterrupted, whenStored, type QueueSetup } from './jobTable.ts';
import { TableQueue } from './tableQueue.ts';
import { Turns } from './turns.ts';

const QUEUE = 'jobs';
/**
 * A worker renews its lock on a running job every half of this; a killed worker's jobs are
 * found stalled by another worker within about this time and handed out again.
 */
const LOCK_MS = 10_000;
const SHUTDOWN_GRACE_MS = 15_000;
const SETTLED_POLL_MS = 100;
/** BullMQ's lowest priority (priorities are 1, first, to 2^21). */
const LAST_PRIORITY = 2 ** 21;

/**
 * The BullMQ queue for several processes: job records stay in the store's `job` table (so
 * `GET /jobs` reads them as with the in-process queue); Redis carries which job runs where. A job
 * whose worker dies is taken up once more by another worker, then fails as interrupted.
 * Identical triggers within the reuse window share one job across processes (BullMQ's
 * deduplication, keyed by the arguments).
 *
 * Accounts take turns, as on the local queue: BullMQ hands out first the jobs of accounts with
 * the fewest jobs queued or running (a job's priority is that count when it is queued), and each
 * process takes one job more than it has slots, which waits in the process (`Turns`) until a
 * slot is free or a long job of another account gives its slot between two cycles.
 */
export class RedisJobQueue<M extends JobTypes> extends TableQueue<M> implements JobQueue<M> {
  private queue: Queue;
  private events?: QueueEvents;
  private worker?: Worker;
  private timer?: NodeJS.Timeout;
  private turns: Turns;

  constructor(setup: QueueSetup<M>) {
    super(setup);
    this.turns = new Turns(setup.config.workerThreads, SPARE_SLOTS);
    this.queue = new Queue(QUEUE, { connection: this.connection(), prefix: redisNamespace(this.setup.config) });
  }

  private connection(): ConnectionOptions {
    // Commands wait for a reconnect instead of failing after a few retries (BullMQ's advice).
    return { url: this.setup.config.redisUrl!, maxRetriesPerRequest: null } as ConnectionOptions;
  }

  async start(): Promise<void> {
    await this.queue.waitUntilReady();
    await this.table.housekeeping();
    this.timer = setInterval(() => void this.table.housekeeping(), 3600_000);
    this.timer.unref();
    if (!this.setup.handlers) return;
    const handlers = this.setup.handlers;
    this.worker = new Worker(QUEUE, (bull, token) => this.run(handlers, bull, token), {
      connection: this.connection(),
      prefix: redisNamespace(this.setup.config),
      // One job more than there are slots (spare ones included): it waits here for a turn (see the class comment).
      concurrency: this.setup.config.workerThreads + SPARE_SLOTS + 1,
      lockDuration: LOCK_MS,
      stalledInterval: LOCK_MS,
      maxStalledCount: 1,
    });
    this.worker.on('error', (err) => this.setup.log.error({ err }, 'job queue failure'));
    this.worker.on('stalled', (id) => this.setup.log.warn({ job: id }, 'job interrupted (its worker stopped); running it again'));
    // `run` records every outcome of a job itself and throws nothing but BullMQ's WaitingError (the
    // job went back to the queue, no failure): a job BullMQ fails was failed by BullMQ, because it stalled a second time (its worker stopped twice), or its outcome could
    // not be recorded. Whichever worker noticed, every worker hears of it; the store still shows
    // it started, and it is recorded as interrupted (the update only applies once).
    this.events = new QueueEvents(QUEUE, { connection: this.connection(), prefix: redisNamespace(this.setup.config) });
    this.events.on('failed', ({ jobId }) => {
      void this.table
        .failInterrupted([jobId], 'the worker running this job stopped, twice; trigger it again.')
        .catch((err: unknown) => this.setup.log.error({ err }, 'job queue failure'));
    });
    await Promise.all([this.worker.waitUntilReady(), this.events.waitUntilReady()]);
  }

  /**
   * Runs a job BullMQ handed to this process once it has a slot. One sent away before (the
   * process stops, or another account's job should come in) goes back to BullMQ's queue.
   */
  private async run(handlers: JobHandlers<M>, bull: BullJob, token: string | undefined): Promise<void> {
    const id = String(bull.id);
    const queued = await this.table.get(id);
    if (!queued) return;
    try {
      await this.turns.take(id, queued.accountId);
    } catch {
      await bull.moveToWait(token);
      throw new WaitingError();
    }
    try {
      // A job delivered again after its worker died is still marked started in the store.
      const job = await this.table.claim(id, ['queued', 'started']);
      const runtime = { enqueue: this.enqueue.bind(this), yieldTurn: () => this.yieldTurn(id, queued.accountId) };
      if (job) await runAndRecord(this.table, handlers, job, this.setup.log, runtime);
    } finally {
      this.turns.leave(id);
    }
  }

  /**
   * Before a cycle of a long job: gives its slot to a waiting job of another account. When the
   * job waiting here in standby is of the same account while BullMQ holds another account's job,
   * the standby one goes back to BullMQ, which then hands out the other (its priority is lower,
   * the account having fewer unfinished jobs): it starts at the next cycle.
   */
  private async yieldTurn(id: string, accountId: number | null): Promise<void> {
    if (this.turns.onlyOwnWaiting(accountId) && (await this.table.othersQueued(accountId))) this.turns.sendBackOf(accountId);
    await this.turns.yieldTurn(id, accountId);
  }

  async enqueue<Q extends keyof M & string>(queue: Q, args: M[Q]['args'], options: EnqueueOptions): Promise<JobRecord<M, Q>> {
    const cacheKey = options.cacheKey ?? cacheKeyOf(queue, args);
    const cached = await this.table.reusable(queue, cacheKey, options);
    if (cached) return cached;
    // Counted before this job is stored: an account with nothing queued or running goes first.
    const priority = Math.min(LAST_PRIORITY, 1 + (await this.table.unfinished(options.accountId, options.trx)));
    const job = await this.table.insert(queue, args, cacheKey, options);
    const reuse = !options.force && !options.trx && options.reuseWithinS > 0;
    const add = () =>
      this.queue.add(
        queue,
        {},
        {
          jobId: job.id,
          priority,
          // Another process may have queued the same arguments a moment ago: then that job is the one.
          ...(reuse ? { deduplication: { id: cacheKey, ttl: options.reuseWithinS * 1000 } } : {}),
          removeOnComplete: true,
          removeOnFail: true,
        },
      );
    if (options.trx) {
      // Handed to BullMQ once stored, as a worker looks the job up by its id. Should Redis refuse
      // it then, the record waits as queued until housekeeping expires it.
      whenStored(
        options.trx,
        () => void add().catch((err: unknown) => this.setup.log.error({ err, job: job.id }, 'job not handed to the queue')),
      );
      return job;
    }
    const added = await add();
    if (added.id !== job.id) {
      const other = await this.table.getOf(queue, String(added.id));
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

  /** Jobs may end in another process: the store is watched until the job ends or time runs out. */
  async settled(id: string, timeoutMs: number): Promise<void> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const job = await this.get(id);
      if (!job || job.status === 'finished' || job.status === 'failed' || Date.now() >= until) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(SETTLED_POLL_MS, until - Date.now())));
    }
  }

  /** Jobs may run in other processes: the store is watched until none is queued or running. */
  async drained(): Promise<void> {
    while (await this.table.busy()) await new Promise((resolve) => setTimeout(resolve, SETTLED_POLL_MS));
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
      // Jobs waiting for a slot go back to BullMQ's queue at once.
      this.turns.close();
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
    await this.setup.onClose?.();
  }
}
