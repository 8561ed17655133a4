import { Cron } from 'croner';

/** Cron expressions as read, by time zone and expression: the automation clock asks every tick. */
const parsed = new Map<string, Cron>();
/** More expressions than any appliance's automations hold: the map starts over past it. */
const PARSED_KEPT = 256;

/**
 * A cron expression read in a time zone: croner keeps wall-clock times across DST changes. Kept
 * once read: a paused croner pattern answers from the date it is given, and holds no stored state.
 */
function pattern(cron: string, timezone: string): Cron {
  const key = `${timezone} ${cron}`;
  let read = parsed.get(key);
  if (!read) {
    read = new Cron(cron, { timezone, paused: true });
    if (parsed.size >= PARSED_KEPT) parsed.clear();
    parsed.set(key, read);
  }
  return read;
}

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
 * appliance was off) collapse into this one, so a restart never starts a burst. Found by looking
 * back from now once, not by walking every due time since the last run: after a month of downtime
 * an every-minute automation would otherwise walk 50,000 due times while requests wait.
 * @returns the due time, or null when nothing is due.
 */
export function latestDue(cron: string, timezone: string, afterMs: number, nowMs: number): number | null {
  // croner counts runs strictly before the date given: a run due at `nowMs` itself is due now.
  const latest = pattern(cron, timezone)
    .previousRuns(1, new Date(nowMs + 1))[0]
    ?.getTime();
  if (latest === undefined || latest > nowMs || latest <= Math.max(afterMs, nowMs - CATCH_UP_WINDOW_MS)) return null;
  return latest;
}

/**
 * `latestDue` when the first due time after `afterMs` is known (`firstMs`, at or before `nowMs`):
 * while the due time after it lies ahead, it is the latest, found by one step forward instead of
 * a look back (an automation due every minute is ticked every 15 s).
 * @returns the due time (null when none) and, when found on the way, the first due time after it.
 */
export function latestDueFrom(
  cron: string,
  timezone: string,
  afterMs: number,
  firstMs: number,
  nowMs: number,
): { dueMs: number | null; nextMs?: number | null } {
  const nextMs = nextDue(cron, timezone, firstMs);
  if (nextMs !== null && nextMs <= nowMs) return { dueMs: latestDue(cron, timezone, afterMs, nowMs) };
  return { dueMs: firstMs > nowMs - CATCH_UP_WINDOW_MS ? firstMs : null, nextMs };
}

/**
 * The shortest gap between the next runs of a cron expression, for the floor on how often an
 * automation may run; sampled over its next `runs` due times.
 */
export function shortestInterval(cron: string, timezone: string, fromMs: number, runs = 120): number {
  const times = pattern(cron, timezone)
    .nextRuns(runs, new Date(fromMs))
    .map((d) => d.getTime());
  let shortest = Infinity;
  for (let i = 1; i < times.length; i++) shortest = Math.min(shortest, times[i] - times[i - 1]);
  return shortest;
}
