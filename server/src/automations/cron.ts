import { Cron } from 'croner';

/** A cron expression read in a time zone: croner keeps wall-clock times across DST changes. */
const pattern = (cron: string, timezone: string) => new Cron(cron, { timezone, paused: true });

/** @returns why the cron expression or time zone is unusable, or null when it is fine. */
export function cronProblem(cron: string, timezone: string): string | null {
  try {
    return pattern(cron, timezone).nextRun() ? null : 'It never runs.';
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** @returns the first due time after `afterMs`, or null when there is none. */
export function nextDue(cron: string, timezone: string, afterMs: number): number | null {
  return pattern(cron, timezone).nextRun(new Date(afterMs))?.getTime() ?? null;
}

/** How far back catch-up looks: a run missed longer ago than this is not worth doing late. */
const CATCH_UP_WINDOW_MS = 35 * 86_400_000;

/**
 * The latest due time in (afterMs, nowMs]: the one run to make now. Several missed runs (the
 * appliance was off) collapse into this one, so a restart never starts a burst.
 * @returns the due time, or null when nothing is due.
 */
export function latestDue(cron: string, timezone: string, afterMs: number, nowMs: number): number | null {
  const p = pattern(cron, timezone);
  let latest: number | null = null;
  let t = Math.max(afterMs, nowMs - CATCH_UP_WINDOW_MS);
  for (;;) {
    const next = p.nextRun(new Date(t))?.getTime();
    if (next === undefined || next > nowMs) return latest;
    latest = t = next;
  }
}
