import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/errors.ts';
import { jobPath, readJob } from '../api/jobs.ts';
import type { Job } from '../api/types.ts';

const POLL_MS = 500;

interface Options {
  /**
   * Follows a failed job to its fallback job, keeping this note (why the first one failed) as
   * the failure next to the fallback's result; without it a failed job is the end.
   */
  fallbackNote?: (failed: Job) => string;
  /** Called once the job has finished (so that charts and lists show what it stored). */
  onFinished?: () => void;
}

export interface FollowedJob {
  /** The job as last read, or null before one is asked for. */
  job: Job | null;
  /** Why asking for or reading the job failed, or the note on a fallback. */
  failure: unknown;
  setFailure: (failure: unknown) => void;
  /** Whether the job is waited for: asked for and not yet finished or failed for good. */
  running: boolean;
  /** Whether the job has finished or failed for good. */
  settled: boolean;
  /** How long the user has been waiting, in ms, as of the last read. */
  elapsed: number;
  /**
   * Asks for a job and follows it until it settles.
   * @param trigger asks for the job and resolves with its id.
   * @returns the error when asking failed, else null.
   */
  follow: (trigger: () => Promise<string>) => Promise<unknown>;
}

/** A job asked for from this page, read again every half second until it has finished or failed. */
export function useFollowedJob({ fallbackNote, onFinished }: Options = {}): FollowedJob {
  const [job, setJob] = useState<Job | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [since, setSince] = useState<number | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const toFallback = fallbackNote !== undefined && job?.status === 'failed' && !!job.fallback_job_id;
  const settled = job !== null && (job.status === 'finished' || job.status === 'failed') && !toFallback;
  // Answers about a job no longer followed (a new one was asked for) are dropped.
  const following = useRef<string | null>(null);

  useEffect(() => {
    if (!job || settled) return;
    const id = job.status === 'failed' ? job.fallback_job_id! : job.id;
    following.current = id;
    const timer = setTimeout(async () => {
      try {
        const next = await readJob(jobPath(id));
        if (following.current !== id) return;
        // Keep the original failure visible next to the fallback result.
        if (job.status === 'failed' && fallbackNote) setFailure(new ApiError(0, { message: fallbackNote(job) }));
        setJob(next);
        setNow(Date.now());
        if (next.status === 'finished') onFinished?.();
      } catch (err) {
        setFailure(err);
        setSince(null);
      }
    }, POLL_MS);
    return () => clearTimeout(timer);
  }, [job, settled, fallbackNote, onFinished]);

  async function follow(trigger: () => Promise<string>) {
    setFailure(null);
    setJob(null);
    setSince(Date.now());
    try {
      const first = await readJob(jobPath(await trigger()));
      setJob(first);
      if (first.status === 'finished') onFinished?.();
      return null;
    } catch (err) {
      setSince(null);
      setFailure(err);
      return err;
    }
  }

  return { job, failure, setFailure, running: since !== null && !settled, settled, elapsed: since === null ? 0 : now - since, follow };
}
