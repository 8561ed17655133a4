/** A job as stored and as the API reports it. */
export interface JobRecord {
  id: string;
  queue: string;
  status: 'queued' | 'started' | 'finished' | 'failed';
  args: unknown;
  accountId: number | null;
  sensorId: number | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  attempts: number;
  result: Record<string, unknown> | null;
  /** `<ErrorName>: <message>` of a failed job. */
  error: string | null;
  /** What kind of failure it was, for programs (absent in jobs that failed before it was recorded). */
  errorKind: JobErrorKind | null;
  fallbackJobId: string | null;
}

export interface EnqueueOptions {
  accountId: number | null;
  sensorId: number | null;
  /** Return the job of identical arguments created within this many seconds, if any. */
  reuseWithinS: number;
  /** Always create a new job. */
  force?: boolean;
}

/** The kinds of job failure, for programs; people read the message. */
export type JobErrorKind = 'infeasible' | 'unknown-prices' | 'interrupted' | 'forbidden' | 'invalid-input' | 'internal';

/** The names failures are reported under (as the reference names them), and the kind of each. */
const failureKinds = {
  InfeasibleProblemException: 'infeasible',
  UnknownPricesException: 'unknown-prices',
  JobInterrupted: 'interrupted',
  PermissionDenied: 'forbidden',
  ValueError: 'invalid-input',
  SchedulerError: 'internal',
  FallbackSchedulerError: 'internal',
} as const satisfies Record<string, JobErrorKind>;
export type FailureName = keyof typeof failureKinds;

/**
 * A handler's failure, named as the reference names it ("<Name>: <message>") and of the kind its
 * name says. With `fallbackArgs` the queue enqueues those arguments on the same queue as the
 * failed job's fallback.
 */
export class JobFailure extends Error {
  readonly kind: JobErrorKind;
  constructor(
    name: FailureName,
    message: string,
    readonly fallbackArgs?: unknown,
  ) {
    super(message);
    this.name = name;
    this.kind = failureKinds[name];
  }
}

/**
 * What a running job may ask of its queue: to queue further jobs (an automation run queues its
 * schedule), and, between the cycles of a long job, to give its turn to a job of another account
 * waiting in the queue, so that one account's long forecast never holds another's schedule for
 * longer than one cycle.
 */
export interface JobRuntime {
  enqueue: JobQueue['enqueue'];
  /** Resolves at once when no other account waits; else once the waiting job had its turn. */
  yieldTurn(): Promise<void>;
}

/** Runs the jobs of one queue; returns the result summary stored with the job. */
export type JobHandler = (job: JobRecord, runtime: JobRuntime) => Promise<Record<string, unknown>>;

/**
 * The job queue as the rest of the server sees it. The in-process implementation
 * (`localJobQueue.ts`) persists jobs in the store and runs them in worker threads; a
 * Redis-backed queue for multi-host sites implements the same interface.
 */
export interface JobQueue {
  enqueue(queue: string, args: unknown, options: EnqueueOptions): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | undefined>;
  /** Resolves when the job has finished or failed, or after `timeoutMs`, whichever comes first. */
  settled(id: string, timeoutMs: number): Promise<void>;
  /** Newest first. */
  list(filter: { accountId?: number; limit: number }): Promise<JobRecord[]>;
  /** Whether the queue's own store answers (readiness); undefined when it has none of its own. */
  ping(): Promise<boolean | undefined>;
  /** Stops taking jobs, lets running ones finish for a while, re-queues the rest. */
  close(): Promise<void>;
}
