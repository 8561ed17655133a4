import { SPARE_SLOTS, type EnqueueOptions, type JobQueue, type JobRecord, type JobTypes } from './jobQueue.ts';
import { cacheKeyOf, runAndRecord, whenStored, type QueueSetup } from './jobTable.ts';
import { TableQueue } from './tableQueue.ts';

const SHUTDOWN_GRACE_MS = 15_000;

/**
 * The in-process queue: jobs live in the `job` table, `concurrency` run at a time. A restart
 * puts interrupted jobs back in the queue once; a job interrupted twice fails with a message.
 */
export class LocalJobQueue<M extends JobTypes> extends TableQueue<M> implements JobQueue<M> {
  private running = new Map<string, Promise<void>>();
  /** The account of each running job, for choosing the next job fairly. */
  private runningAccounts = new Map<string, number | null>();
  /** Running jobs that gave their turn away (see `yieldTurn`): they hold no slot meanwhile. */
  private yielding = new Set<string>();
  /**
   * The account of each job this process queued and has not claimed yet: a turn check finds a
   * waiting job of another account here without a store query (the store is asked otherwise).
   */
  private queuedAccounts = new Map<string, number | null>();
  /** Yielded jobs waiting for a slot. */
  private slotWaiters: (() => void)[] = [];
  private waiters = new Map<string, (() => void)[]>();
  private closing = false;
  private timer: NodeJS.Timeout;

  constructor(setup: QueueSetup<M>) {
    super(setup);
    // Housekeeping every hour: expire stale queued jobs, forget old finished ones.
    this.timer = setInterval(() => void this.table.housekeeping(), 3600_000);
    this.timer.unref();
  }

  /** Recovers jobs a previous process left behind, then starts working. */
  async start(): Promise<void> {
    await this.table.failInterrupted('retried', 'the server stopped while this job ran, twice; trigger it again.');
    const resumed = await this.table.requeue('all');
    if (resumed) this.setup.log.warn({ jobs: resumed }, 'resuming jobs interrupted by a restart');
    await this.table.housekeeping();
    this.pump();
  }

  async enqueue<Q extends keyof M & string>(queue: Q, args: M[Q]['args'], options: EnqueueOptions): Promise<JobRecord<M, Q>> {
    const cacheKey = options.cacheKey ?? cacheKeyOf(queue, args);
    const cached = await this.table.reusable(queue, cacheKey, options);
    if (cached) return cached;
    const job = await this.table.insert(queue, args, cacheKey, options);
    whenStored(options.trx, () => {
      this.queuedAccounts.set(job.id, job.accountId);
      this.pump();
    });
    return job;
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

  async drained(): Promise<void> {
    // A finished job may have queued the next (an automation run its schedule): look again after it.
    while (this.running.size || (await this.table.busy())) {
      await Promise.allSettled([...this.running.values()]);
      await new Promise((resolve) => setImmediate(resolve));
    }
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
      this.setup.log.warn({ jobs: [...this.running.keys()] }, 're-queued jobs still running at shutdown');
    }
    await this.setup.onClose?.();
  }

  /** Jobs holding a slot now. */
  private busy(): number {
    return this.running.size - this.yielding.size;
  }

  /**
   * Before each cycle of a long job: when a job of another account waits, starts it at once in
   * this job's slot and continues once a slot is free again (the waiting job finished, or another
   * one). The waiting job so waits at most for the cycle under way when it was queued.
   */
  private async yieldTurn(job: JobRecord<M>): Promise<void> {
    const noted = [...this.queuedAccounts.values()].some((a) => a !== job.accountId);
    if (this.closing || !(noted || (await this.table.othersQueued(job.accountId)))) return;
    this.yielding.add(job.id);
    try {
      await this.claimAndRun();
      while (this.busy() >= this.setup.config.workerThreads) await new Promise<void>((resolve) => this.slotWaiters.push(resolve));
    } finally {
      this.yielding.delete(job.id);
    }
  }

  /** Starts queued jobs while there is capacity. */
  private pump(): void {
    if (this.closing) return;
    void this.claimAndRun().catch((err: unknown) => this.setup.log.error({ err }, 'job queue failure'));
  }

  /**
   * Claims and starts queued jobs while a slot is free: the oldest of an account with no job
   * running, else the oldest, so that accounts take turns. With every slot taken, a spare slot
   * (`SPARE_SLOTS`) still takes a job of an account with no job running.
   */
  private async claimAndRun(): Promise<void> {
    const handlers = this.setup.handlers;
    while (handlers && !this.closing && this.busy() < this.setup.config.workerThreads + SPARE_SLOTS) {
      const spareOnly = this.busy() >= this.setup.config.workerThreads;
      const active = [...new Set(this.runningAccounts.values())].filter((a): a is number => a !== null);
      const queued = () => this.setup.db('job').where({ status: 'queued' }).orderBy('created_at');
      const fresh = await queued()
        .where((q) => q.whereNull('account_id').orWhereNotIn('account_id', active))
        .first('id');
      // With no account running, the first look saw every queued job already.
      const next = fresh ?? (spareOnly || !active.length ? undefined : await queued().first('id'));
      if (!next) {
        // Nothing is queued: notes of jobs that expired meanwhile go too.
        if (!spareOnly) this.queuedAccounts.clear();
        return;
      }
      this.queuedAccounts.delete(next.id);
      const job = await this.table.claim(next.id);
      if (!job) continue;
      const runtime = { enqueue: this.enqueue.bind(this), yieldTurn: () => this.yieldTurn(job) };
      const run = runAndRecord(this.table, handlers, job, this.setup.log, runtime).finally(() => {
        this.running.delete(job.id);
        this.runningAccounts.delete(job.id);
        for (const wake of this.waiters.get(job.id) ?? []) wake();
        this.waiters.delete(job.id);
        // A yielded job gets its slot back before the next queued job is claimed.
        for (const wake of this.slotWaiters.splice(0)) wake();
        this.pump();
      });
      this.running.set(job.id, run);
      this.runningAccounts.set(job.id, job.accountId);
    }
  }
}
