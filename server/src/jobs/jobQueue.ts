import type { Knex } from 'knex';
import type { FlexsiteJobs } from '../contracts/jobs.ts';

/**
 * What a queue's jobs take and give: per queue name, the arguments a job is queued with and the
 * result summary a finished job stores. The queue boundary is typed by it, so a job is queued
 * only with its queue's arguments and read back with them.
 */
export type JobTypes = { [queue: string]: { args: object; result: object } };

/** A job as stored and as the API reports it, of queue `Q`. */
export interface JobOf<M extends JobTypes, Q extends keyof M & string> {
  id: string;
  queue: Q;
  status: 'queued' | 'started' | 'finished' | 'failed';
  args: M[Q]['args'];
  accountId: number | null;
  sensorId: number | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  attempts: number;
  /** Set once the job finished. */
  result: M[Q]['result'] | null;
  /** `<ErrorName>: <message>` of a failed job. */
  error: string | null;
  /** What kind of failure it was, for programs (absent in jobs that failed before it was recorded). */
  errorKind: JobErrorKind | null;
  fallbackJobId: string | null;
  /** How far a running (or ended) job came, in its own steps; null for a job that reports none. */
  progress: { done: number; total: number } | null;
}

/**
 * A job of one of the queues `Q` (by default any): a union over the queue name, so checking
 * `job.queue` tells its arguments' and result's type.
 */
export type JobRecord<M extends JobTypes = FlexsiteJobs, Q extends keyof M & string = keyof M & string> = {
  [K in Q]: JobOf<M, K>;
}[Q];

export interface EnqueueOptions {
  accountId: number | null;
  sensorId: number | null;
  /** Return the job of identical arguments created within this many seconds, if any. */
  reuseWithinS: number;
  /** Always create a new job. */
  force?: boolean;
  /**
   * The key that identifies the job for reuse, `cacheKeyOf(queue, …)` as the caller computed it
   * (not hashed again), of not all of its arguments maybe: an automation's schedule leaves out its
   * belief time, which moves every run while what the job reads may not.
   */
  cacheKey?: string;
  /**
   * The caller's transaction: the job's record is stored in it, so that it commits together with
   * the caller's other writes (its audit entry) or not at all, and the queue takes the job up once
   * the transaction has committed. Such a job is always a new one, as with `force`.
   */
  trx?: Knex.Transaction;
}

/** Which jobs a listing answers with: all of them, or those of an account, of some queues, ended since a time. */
export interface JobListFilter<M extends JobTypes = FlexsiteJobs> {
  accountId?: number;
  /** Only jobs of these queues. */
  queues?: (keyof M & string)[];
  /** Only jobs that ended (finished or failed) at or after this time; a client that lists what ended since its last look passes its last look's newest end. */
  endedFromMs?: number;
  /** At most this many, the newest first. */
  limit: number;
}

/** The kinds of job failure, for programs; people read the message. */
export type JobErrorKind =
  'infeasible' | 'unknown-prices' | 'interrupted' | 'forbidden' | 'invalid-input' | 'not-found' | 'conflict' | 'internal';

/** The names failures are reported under (as the reference names them), and the kind of each. */
const failureKinds = {
  InfeasibleProblemException: 'infeasible',
  UnknownPricesException: 'unknown-prices',
  JobInterrupted: 'interrupted',
  PermissionDenied: 'forbidden',
  ValueError: 'invalid-input',
  LookupError: 'not-found',
  ConflictError: 'conflict',
  SchedulerError: 'internal',
  FallbackSchedulerError: 'internal',
} as const satisfies Record<string, JobErrorKind>;
export type FailureName = keyof typeof failureKinds;

/**
 * A handler's failure, named as the reference names it ("<Name>: <message>") and of the kind its
 * name says. With `fallbackJobId` (a job the handler queued to stand in for this one) the queue
 * links the failed job to it before recording the failure.
 */
export class JobFailure extends Error {
  readonly kind: JobErrorKind;
  constructor(
    name: FailureName,
    message: string,
    readonly fallbackJobId?: string,
  ) {
    super(message);
    this.name = name;
    this.kind = failureKinds[name];
  }
}

/**
 * What a running job may ask of its queue: to queue further jobs (an automation run queues its
 * schedule), and, before each cycle of a long job, to give its turn to a job of another account
 * waiting in the queue, so that one account's long forecast never holds another's schedule for
 * longer than one cycle.
 */
export interface QueueAccess<M extends JobTypes = FlexsiteJobs> {
  enqueue: JobQueue<M>['enqueue'];
  /** Resolves at once when no other account waits; else once the waiting job had its turn. */
  yieldTurn(): Promise<void>;
}

/** What a running job of queue `Q` may ask of its queue. */
export interface JobRuntime<M extends JobTypes = FlexsiteJobs, Q extends keyof M & string = keyof M & string> extends QueueAccess<M> {
  /**
   * Queues a job on this job's queue, for its account and sensor (never reused), to stand in for
   * it: the job then fails with a `JobFailure` naming the returned id (an infeasible schedule's
   * fallback). The job's own checks passed; this is no new trigger.
   */
  standIn(args: M[Q]['args']): Promise<string>;
  /** Records how far the job has come (`done` of `total` of its own steps), for whoever asks for the job. */
  progress(done: number, total: number): Promise<void>;
}

/** Runs the jobs of queue `Q`; returns the result summary stored with the job. */
export type JobHandler<M extends JobTypes = FlexsiteJobs, Q extends keyof M & string = keyof M & string> = (
  job: JobRecord<M, Q>,
  runtime: JobRuntime<M, Q>,
) => Promise<M[Q]['result']>;

/**
 * Slots beyond the worker threads, each only for a job of an account with no job running: one
 * account's long solve (a single solver call cannot give its turn away between cycles) then holds
 * its own slot only, and another account's schedule starts next to it at once. The worker pool
 * has a thread for each.
 */
export const SPARE_SLOTS = 1;

/** A handler for every queue. */
export type JobHandlers<M extends JobTypes = FlexsiteJobs> = { [Q in keyof M & string]: JobHandler<M, Q> };

/**
 * The job queue as the rest of the server sees it. The in-process implementation
 * (`localJobQueue.ts`) persists jobs in the store and runs them in worker threads; a
 * Redis-backed queue for multi-host sites implements the same interface.
 */
export interface JobQueue<M extends JobTypes = FlexsiteJobs> {
  enqueue<Q extends keyof M & string>(queue: Q, args: M[Q]['args'], options: EnqueueOptions): Promise<JobRecord<M, Q>>;
  /**
   * Stores a job that ran without a turn in the queue, finished with `result` (it started and
   * finished now, one attempt), unless a job of its arguments is there already (as `enqueue`
   * finds one).
   * @returns the job stored, or the one found.
   */
  record<Q extends keyof M & string>(
    queue: Q,
    args: M[Q]['args'],
    result: M[Q]['result'],
    options: EnqueueOptions,
  ): Promise<JobRecord<M, Q>>;
  get(id: string): Promise<JobRecord<M> | undefined>;
  /** Resolves when the job has finished or failed, or after `timeoutMs`, whichever comes first. */
  settled(id: string, timeoutMs: number): Promise<void>;
  /**
   * Resolves once no job is queued or running (a simulated clock waits for it after each tick).
   * In a process that runs no jobs, only once other processes ran them.
   */
  drained(): Promise<void>;
  /** Newest first. */
  list(filter: JobListFilter<M>): Promise<JobRecord<M>[]>;
  /** Whether the queue's own store answers (readiness); undefined when it has none of its own. */
  ping(): Promise<boolean | undefined>;
  /** Stops taking jobs, lets running ones finish for a while, re-queues the rest. */
  close(): Promise<void>;
}
