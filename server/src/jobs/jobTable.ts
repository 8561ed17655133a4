import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { isDomainError, type ErrorKind } from '../errors.ts';
import { dialectOf } from '../db/dialect.ts';
import {
  JobFailure,
  type EnqueueOptions,
  type FailureName,
  type JobErrorKind,
  type JobHandlers,
  type JobListFilter,
  type JobOf,
  type JobRecord,
  type JobTypes,
  type QueueAccess,
} from './jobQueue.ts';

export interface DbJob {
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
  error_kind: JobErrorKind | null;
  fallback_job_id: string | null;
  progress_done: number | null;
  progress_total: number | null;
}

/** Tells a stored job's queue name for one of the queues of `M`. */
export type IsQueue<M extends JobTypes> = (name: string) => name is keyof M & string;

/** What a job queue (in-process or on Redis) is built from. */
export interface QueueSetup<M extends JobTypes> {
  db: Knex;
  config: Config;
  log: Logger;
  isQueue: IsQueue<M>;
  /**
   * The job handlers when this process runs jobs (roles `all` and `worker`); null in an API-only
   * process (no worker threads): jobs then wait in the store.
   */
  handlers: JobHandlers<M> | null;
  clock: Clock;
  /** Runs once the queue has closed (gives the worker threads back). */
  onClose?: () => Promise<void>;
}

/**
 * A stored job of queue `queue`. Its arguments and result are read back as that queue's: they
 * were written by `insert` and `finish` from that queue's typed values only.
 */
function jobOf<M extends JobTypes, Q extends keyof M & string>(queue: Q, r: DbJob): JobRecord<M, Q> {
  const job: JobOf<M, Q> = {
    id: r.id,
    queue,
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
    errorKind: r.error_kind ?? null,
    fallbackJobId: r.fallback_job_id,
    progress: r.progress_total === null ? null : { done: Number(r.progress_done), total: Number(r.progress_total) },
  };
  return job;
}

/** A stored job, or undefined for a queue this server does not know (a later version's). */
const fromRow = <M extends JobTypes>(isQueue: IsQueue<M>, r: DbJob): JobRecord<M> | undefined =>
  isQueue(r.queue) ? jobOf<M, typeof r.queue>(r.queue, r) : undefined;

/** Stable JSON: object keys sorted, so equal arguments hash equally whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    return `{${entries
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/** @returns the key under which identical triggers find each other's job. */
export const cacheKeyOf = (queue: string, args: object) =>
  crypto
    .createHash('sha256')
    .update(`${queue}:${canonical(args)}`)
    .digest('hex');

/**
 * The newest job of a key and queue created after a time, unless it was interrupted: an
 * interrupted job says "trigger it again", and that trigger gets a new job.
 */
export const REUSABLE_JOB =
  "FROM job WHERE cache_key = ? AND queue = ? AND created_at > ? AND (status <> 'failed' OR error_kind IS NULL OR error_kind <> 'interrupted') ORDER BY created_at DESC LIMIT 1";
const REUSABLE = `SELECT * ${REUSABLE_JOB}`;

/**
 * The SQL type of each column of `job`, in the order statements list them: a parameter in a
 * SELECT list has no column to take its type from, and PostgreSQL would take it for text.
 */
const JOB_COLUMN_TYPES: Record<keyof DbJob, 'TEXT' | 'BIGINT' | 'INTEGER'> = {
  id: 'TEXT',
  queue: 'TEXT',
  status: 'TEXT',
  args: 'TEXT',
  cache_key: 'TEXT',
  account_id: 'BIGINT',
  sensor_id: 'BIGINT',
  created_at: 'BIGINT',
  started_at: 'BIGINT',
  finished_at: 'BIGINT',
  attempts: 'INTEGER',
  result: 'TEXT',
  error: 'TEXT',
  error_kind: 'TEXT',
  fallback_job_id: 'TEXT',
  progress_done: 'INTEGER',
  progress_total: 'INTEGER',
};
const JOB_COLUMNS = Object.keys(JOB_COLUMN_TYPES) as (keyof DbJob)[];
const INSERT_JOB = `INSERT INTO job (${JOB_COLUMNS.join(', ')}) VALUES (${JOB_COLUMNS.map(() => '?').join(', ')})`;
/** Stores a job unless a reusable one is there (`REUSABLE_JOB`; its bindings follow the columns). */
const INSERT_UNLESS_REUSABLE = `INSERT INTO job (${JOB_COLUMNS.join(', ')}) SELECT ${JOB_COLUMNS.map(
  (c) => `CAST(? AS ${JOB_COLUMN_TYPES[c]})`,
).join(', ')} WHERE NOT EXISTS (SELECT 1 ${REUSABLE_JOB}) RETURNING id`;

/** The name a domain refusal is recorded under in a job (the reference's failure names). */
const failureNames: Record<ErrorKind, FailureName> = {
  refused: 'PermissionDenied',
  invalid: 'ValueError',
  'not-found': 'LookupError',
  conflict: 'ConflictError',
};

/**
 * What a failed job records: a job failure as named, with its kind; a domain refusal (an
 * automation resolving its stored configuration answers as a trigger would) under its failure
 * name with its messages in words; one of our own plain errors (a sentence for people) as
 * internal; anything else (a runtime error such as a RangeError) as internal without its text,
 * which tells people nothing and the log keeps.
 */
export function failureOf(error: Error): { error: string; error_kind: JobErrorKind } {
  const failure = isDomainError(error) ? new JobFailure(failureNames[error.kind], error.message) : error;
  if (failure instanceof JobFailure) return { error: `${failure.name}: ${failure.message}`, error_kind: failure.kind };
  if (error.constructor === Error) return { error: `${error.name}: ${error.message}`, error_kind: 'internal' };
  return { error: 'InternalError: the job failed unexpectedly; the server log has the details.', error_kind: 'internal' };
}

/**
 * Runs `then` now, or, for a job stored in the caller's transaction, once that has committed
 * (never when it rolls back: the job is gone then): a queue must not look for a job before it exists.
 */
export function whenStored(trx: Knex.Transaction | undefined, then: () => void): void {
  if (!trx) return then();
  // A rolled-back transaction's error is its caller's.
  trx.executionPromise.then(then, () => undefined);
}

/** Whether a job failed because the process running it stopped (such a job is never reused). */
export const wasInterrupted = (job: Pick<JobRecord, 'status' | 'errorKind'>) => job.status === 'failed' && job.errorKind === 'interrupted';

/**
 * The `job` table: where both queues keep their jobs' records, so `GET /jobs` reads the same
 * whichever queue runs them.
 */
export class JobTable<M extends JobTypes> {
  constructor(
    private db: Knex,
    private config: Config,
    private isQueue: IsQueue<M>,
    /** Jobs are created, started and finished at its time. */
    private clock: Clock,
  ) {}

  /** @returns the newest job of these arguments created within `reuseWithinS`, unless it was interrupted. */
  async reusable<Q extends keyof M & string>(queue: Q, cacheKey: string, options: EnqueueOptions): Promise<JobRecord<M, Q> | undefined> {
    if (options.force || options.trx || options.reuseWithinS <= 0) return undefined;
    // Every trigger and automation run asks: one kept statement, without the query builder.
    const [cached] = await dialectOf(this.db).query<DbJob>(this.db, REUSABLE, [
      cacheKey,
      queue,
      this.clock.now() - options.reuseWithinS * 1000,
    ]);
    return cached && jobOf<M, Q>(queue, cached);
  }

  /**
   * Stores a new queued job; with `result`, one that ran without the queue and finished now.
   */
  async insert<Q extends keyof M & string>(
    queue: Q,
    args: M[Q]['args'],
    cacheKey: string,
    options: EnqueueOptions,
    result?: M[Q]['result'],
  ): Promise<JobRecord<M, Q>> {
    const row = this.newRow(queue, args, cacheKey, options, result);
    if (options.trx) await options.trx('job').insert(row);
    // Else one kept statement, without the query builder.
    else
      await dialectOf(this.db).query(
        this.db,
        INSERT_JOB,
        JOB_COLUMNS.map((c) => row[c]),
      );
    return jobOf<M, Q>(queue, row);
  }

  /** See `JobQueue.record`. */
  async record<Q extends keyof M & string>(
    queue: Q,
    args: M[Q]['args'],
    result: M[Q]['result'],
    options: EnqueueOptions,
  ): Promise<JobRecord<M, Q>> {
    const cacheKey = options.cacheKey ?? cacheKeyOf(queue, args);
    if (options.force || options.trx || options.reuseWithinS <= 0) return this.insert(queue, args, cacheKey, options, result);
    // Every automation run that found its answer unchanged records one (fourteen a quarter hour
    // for one due every minute): the lookup `reusable` makes and the insert in one kept statement.
    const row = this.newRow(queue, args, cacheKey, options, result);
    const inserted = await dialectOf(this.db).query(this.db, INSERT_UNLESS_REUSABLE, [
      ...JOB_COLUMNS.map((c) => row[c]),
      cacheKey,
      queue,
      row.created_at - options.reuseWithinS * 1000,
    ]);
    if (inserted.length) return jobOf<M, Q>(queue, row);
    // The same run was recorded already (by another process, or before a restart): its job. One
    // gone since (housekeeping, an interruption) leaves this run to record as a new one.
    return (await this.reusable(queue, cacheKey, options)) ?? this.insert(queue, args, cacheKey, options, result);
  }

  /** A new job's row: queued, or with `result` one that started and finished now in one attempt. */
  private newRow<Q extends keyof M & string>(
    queue: Q,
    args: M[Q]['args'],
    cacheKey: string,
    options: EnqueueOptions,
    result?: M[Q]['result'],
  ): DbJob {
    const nowMs = this.clock.now();
    return {
      id: crypto.randomUUID(),
      queue,
      status: result ? 'finished' : 'queued',
      args: JSON.stringify(args),
      cache_key: cacheKey,
      account_id: options.accountId,
      sensor_id: options.sensorId,
      created_at: nowMs,
      started_at: result ? nowMs : null,
      finished_at: result ? nowMs : null,
      attempts: result ? 1 : 0,
      result: result ? JSON.stringify(result) : null,
      error: null,
      error_kind: null,
      fallback_job_id: null,
      progress_done: null,
      progress_total: null,
    };
  }

  /** Forgets a job that was never handed to a queue. */
  async remove(id: string): Promise<void> {
    await this.db('job').where({ id }).delete();
  }

  /** Records a started job's progress. */
  async progress(id: string, done: number, total: number): Promise<void> {
    await this.db('job').where({ id, status: 'started' }).update({ progress_done: done, progress_total: total });
  }

  async linkFallback(failedJobId: string, fallbackJobId: string): Promise<void> {
    await this.db('job').where({ id: failedJobId }).update({ fallback_job_id: fallbackJobId });
  }

  async get(id: string): Promise<JobRecord<M> | undefined> {
    const row = await this.db<DbJob>('job').where({ id }).first();
    return row && fromRow(this.isQueue, row);
  }

  /** The job of this id if it is of this queue. */
  async getOf<Q extends keyof M & string>(queue: Q, id: string): Promise<JobRecord<M, Q> | undefined> {
    const row = await this.db<DbJob>('job').where({ id, queue }).first();
    return row && jobOf<M, Q>(queue, row);
  }

  async list(filter: JobListFilter<M>): Promise<JobRecord<M>[]> {
    const q = this.db<DbJob>('job').orderBy('created_at', 'desc').limit(filter.limit);
    if (filter.accountId !== undefined) q.where({ account_id: filter.accountId });
    if (filter.queues) q.whereIn('queue', filter.queues);
    // Ended jobs only: finished and failed ones (and only they) have an end.
    if (filter.endedFromMs !== undefined) q.where('finished_at', '>=', filter.endedFromMs);
    return (await q).flatMap((r) => fromRow(this.isQueue, r) ?? []);
  }

  /** Whether a job of another account than this one is queued. */
  async othersQueued(accountId: number | null): Promise<boolean> {
    const waiting = await this.db('job')
      .where({ status: 'queued' })
      .where((q) => (accountId === null ? q.whereNotNull('account_id') : q.whereNull('account_id').orWhereNot('account_id', accountId)))
      .first('id');
    return waiting !== undefined;
  }

  /**
   * How many jobs of an account are queued or running: its place in the turns of a queue that
   * orders by it (BullMQ's priority), so an account with fewer waiting jobs goes first.
   * @param db the caller's transaction when the job is queued in one (it may hold the only writer).
   */
  async unfinished(accountId: number | null, db: Knex = this.db): Promise<number> {
    const q = db('job').whereIn('status', ['queued', 'started']);
    if (accountId === null) q.whereNull('account_id');
    else q.where({ account_id: accountId });
    const [{ n }] = await q.count({ n: '*' });
    return Number(n);
  }

  /**
   * Marks a job started, counting the attempt.
   * @param from the states it may be taken from: queued, or also started when the queue itself
   *   hands out again the job of a process that died.
   * @returns the started job, or undefined when it is gone or another process claimed it first.
   */
  async claim(id: string, from: JobRecord['status'][] = ['queued']): Promise<JobRecord<M> | undefined> {
    if (from.length === 1 && from[0] === 'queued') {
      // One statement: a queued job leaves that state when claimed, so of two claims (processes
      // on a pooled engine) only one matches.
      const [row] = await this.db<DbJob>('job')
        .where({ id, status: 'queued' })
        .update({ status: 'started', started_at: this.clock.now(), attempts: this.db.raw('attempts + 1') }, '*');
      return row && fromRow(this.isQueue, row as DbJob);
    }
    // A started job stays started when handed out again: the attempts read tell two claims apart.
    return this.db.transaction(async (trx) => {
      const next = await trx<DbJob>('job').where({ id }).first();
      if (!next || !from.includes(next.status)) return undefined;
      const startedAt = this.clock.now();
      // Conditional on the state just read: on a pooled engine another claim may have won.
      const claimed = await trx('job')
        .where({ id, status: next.status, attempts: next.attempts })
        .update({ status: 'started', started_at: startedAt, attempts: next.attempts + 1 });
      if (!claimed) return undefined;
      return fromRow(this.isQueue, { ...next, status: 'started', started_at: startedAt, attempts: next.attempts + 1 });
    });
  }

  /** Records how a started job ended. */
  async finish(id: string, outcome: { result: object } | { error: Error }): Promise<void> {
    const update =
      'result' in outcome
        ? { status: 'finished', result: JSON.stringify(outcome.result), finished_at: this.clock.now() }
        : { status: 'failed', ...failureOf(outcome.error), finished_at: this.clock.now() };
    await this.db('job').where({ id, status: 'started' }).update(update);
  }

  /** Fails started jobs that were interrupted, with the message that says to trigger them again. */
  async failInterrupted(ids: string[] | 'retried', message: string): Promise<number> {
    const q = this.db('job').where({ status: 'started' });
    if (ids === 'retried') q.andWhere('attempts', '>=', 2);
    else q.whereIn('id', ids);
    return q.update({ status: 'failed', finished_at: this.clock.now(), error: `JobInterrupted: ${message}`, error_kind: 'interrupted' });
  }

  /** Whether any job is queued or running, in any process. */
  async busy(): Promise<boolean> {
    return (await this.db('job').whereIn('status', ['queued', 'started']).first('id')) !== undefined;
  }

  /** Puts started jobs back in the queue. */
  async requeue(ids: string[] | 'all'): Promise<number> {
    const q = this.db('job').where({ status: 'started' });
    if (ids !== 'all') q.whereIn('id', ids);
    return q.update({ status: 'queued', started_at: null, progress_done: null, progress_total: null });
  }

  /** Expires stale queued jobs and forgets old finished ones. */
  async housekeeping(): Promise<void> {
    const now = this.clock.now();
    await this.db('job')
      .where({ status: 'queued' })
      .andWhere('created_at', '<', now - this.config.jobTtlMs)
      .delete();
    await this.db('job')
      .whereIn('status', ['finished', 'failed'])
      .andWhere('finished_at', '<', now - this.config.planningTtlMs)
      .delete();
  }
}

/**
 * Runs a started job with its queue's handler and records how it ended (a job re-queued or
 * failed meanwhile keeps that state: only a started job is updated). A failure that names a
 * fallback job is linked to it before it shows as failed, so a client never sees it failed
 * without its fallback.
 */
export async function runAndRecord<M extends JobTypes, Q extends keyof M & string>(
  table: JobTable<M>,
  handlers: JobHandlers<M>,
  job: JobRecord<M, Q>,
  log: Logger,
  queue: QueueAccess<M>,
): Promise<void> {
  const handler = handlers[job.queue];
  const standIn = async (args: M[Q]['args']) =>
    (await queue.enqueue(job.queue, args, { accountId: job.accountId, sensorId: job.sensorId, reuseWithinS: 0, force: true })).id;
  const runtime = { ...queue, standIn, progress: (done: number, total: number) => table.progress(job.id, done, total) };
  let outcome: { result: object } | { error: Error };
  const started = performance.now();
  try {
    outcome = { result: await handler(job, runtime) };
    log.info({ job: job.id, ms: Math.round(performance.now() - started) }, 'job finished');
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    outcome = { error };
    log.warn({ job: job.id, error: `${error.name}: ${error.message}` }, 'job failed');
    if (error instanceof JobFailure && error.fallbackJobId !== undefined) {
      await table.linkFallback(job.id, error.fallbackJobId).catch((err: unknown) => log.error({ err, job: job.id }, 'fallback not linked'));
    }
  }
  await table.finish(job.id, outcome);
}
