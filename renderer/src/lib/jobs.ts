import type { Job } from '../api/types.ts';
import { formatElapsed, formatTime } from './time.ts';

interface SpecSummary {
  scheduler?: string;
  startMs?: number;
  endMs?: number;
}

/**
 * A one-line description of what a scheduling job was asked to do.
 * @param job the job.
 * @param zone the time zone to show times in.
 * @returns e.g. `StorageScheduler, 2025-03-01 00:00 → 2025-03-02 00:00`.
 */
export function jobSummary(job: Job, zone: string): string {
  const args = job.args as { spec?: SpecSummary; fallback?: boolean } | null;
  const spec = args?.spec;
  if (!spec) return '';
  const scheduler = args?.fallback ? 'fallback' : (spec.scheduler ?? '');
  return `${scheduler}, ${formatTime(spec.startMs, zone)} → ${formatTime(spec.endMs, zone)}`;
}

/** @returns how long the job ran, or an empty string while it has not finished. */
export function jobDuration(job: Job): string {
  if (!job.started_at || !job.finished_at) return '';
  return formatElapsed(Date.parse(job.finished_at) - Date.parse(job.started_at));
}
