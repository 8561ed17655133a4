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

/**
 * A handler's failure, named as the reference names it ("<Name>: <message>"). With `fallbackArgs`
 * the queue enqueues those arguments on the same queue as the failed job's fallback.
 */
export class JobFailure extends Error {
  constructor(
    name: string,
    message: string,
    readonly fallbackArgs?: unknown,
  ) {
    super(message);
    this.name = name;
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
