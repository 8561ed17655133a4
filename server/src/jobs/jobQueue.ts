/**
 * The scheduling job queue as the HTTP layer sees it. The in-process implementation runs jobs
 * in a piscina pool; a Redis-backed queue for multi-host sites implements the same interface.
 */
export interface JobQueue {
  /** Whether the queue's own store answers (for the readiness check); undefined when it has none of its own. */
  ping(): Promise<boolean | undefined>;
  /** Stops taking jobs and lets running ones finish or re-queues them. */
  close(): Promise<void>;
}
