import type { JobStatus as Status, JobWarning } from '../api/types.ts';
import { formatTime } from '../lib/time.ts';

const labels: Record<Status, string> = { queued: 'Queued', started: 'Running', finished: 'Finished', failed: 'Failed' };

/** What a badge needs of a job: its state and, once finished, its warnings. */
interface Shown {
  status: Status;
  warnings?: JobWarning[] | null;
}

/** @returns whether a job finished, but with warnings (inputs extended, fallback, constraints not met). */
export const finishedWithWarnings = (job: Shown) => job.status === 'finished' && (job.warnings?.length ?? 0) > 0;

/**
 * A job's state as a coloured badge with a text label (colour is never the only signal): one of
 * Finished (green), Finished with warnings (amber) and Failed (red) once it has run.
 */
export function JobStatus({ job }: { job: Shown }) {
  if (finishedWithWarnings(job)) {
    const n = job.warnings!.length;
    return (
      <span className="badge warned" title={job.warnings!.map((w) => w.message).join('\n')}>
        Finished with {n === 1 ? 'a warning' : `${n} warnings`}
      </span>
    );
  }
  return <span className={`badge ${job.status}`}>{labels[job.status]}</span>;
}

/** At most this many periods per warning are listed; the rest are counted. */
const MAX_PERIODS = 4;

/**
 * The warnings of a finished job, each with the periods it applies to in the site's zone.
 * @param zone the time zone the periods are shown in, and named.
 */
export function JobWarnings({ warnings, zone }: { warnings: JobWarning[] | null | undefined; zone: string }) {
  if (!warnings?.length) return null;
  return (
    <section className="notice warn job-warnings" aria-label="Warnings">
      <strong>Finished with warnings: this schedule is not quite what was asked for.</strong>
      <ul>
        {warnings.map((w, i) => (
          <li key={i} data-code={w.code}>
            {w.message}
            {w.periods && w.periods.length > 0 && (
              <span className="muted">
                {' '}
                ({zone}:{' '}
                {w.periods
                  .slice(0, MAX_PERIODS)
                  .map((p) => `${formatTime(p.start, zone)} – ${formatTime(p.end, zone)}`)
                  .join('; ')}
                {w.periods.length > MAX_PERIODS && `; and ${w.periods.length - MAX_PERIODS} more`})
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
