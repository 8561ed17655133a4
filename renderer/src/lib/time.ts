import { DateTime } from 'luxon';

export type RangeSize = 'day' | 'week' | 'month';

/** A time window [start, end) in a site's time zone. */
export interface TimeRange {
  start: DateTime;
  end: DateTime;
}

/**
 * The day, week (Monday first) or month holding a date, in a time zone; a day may be 23 or 25
 * hours long around daylight-saving changes.
 * @param anchor a calendar date, `YYYY-MM-DD`.
 * @param size the length of the window.
 * @param zone an IANA time zone.
 * @returns the window.
 */
export function rangeOf(anchor: string, size: RangeSize, zone: string): TimeRange {
  const day = DateTime.fromISO(anchor, { zone });
  const start = (day.isValid ? day : DateTime.now().setZone(zone)).startOf(size);
  return { start, end: start.plus({ [size]: 1 }) };
}

/**
 * Moves a calendar date by whole windows.
 * @param anchor `YYYY-MM-DD`.
 * @param size the window length.
 * @param steps how many windows, negative for earlier.
 * @returns the new date, `YYYY-MM-DD`.
 */
export function shiftDate(anchor: string, size: RangeSize, steps: number): string {
  return (
    DateTime.fromISO(anchor)
      .plus({ [size]: steps })
      .toISODate() ?? anchor
  );
}

/** @returns today's date in a time zone, `YYYY-MM-DD`. */
export const today = (zone: string): string => DateTime.now().setZone(zone).toISODate() ?? '';

/** @returns a window's start and end as the API wants them (ISO 8601 with the zone's offset). */
export function rangeQuery(range: TimeRange): { event_starts_after: string; event_ends_before: string } {
  return { event_starts_after: range.start.toISO() ?? '', event_ends_before: range.end.toISO() ?? '' };
}

/**
 * Shows an instant in a time zone for people.
 * @param value epoch milliseconds or ISO text.
 * @param zone the time zone.
 * @returns e.g. `2025-03-01 13:00`, or an empty string for nothing.
 */
export function formatTime(value: number | string | null | undefined, zone: string): string {
  if (value === null || value === undefined || value === '') return '';
  const dt = typeof value === 'number' ? DateTime.fromMillis(value) : DateTime.fromISO(value, { setZone: true });
  return dt.isValid ? dt.setZone(zone).toFormat('yyyy-LL-dd HH:mm') : String(value);
}

/**
 * An instant as wall-clock time of a zone, encoded as if that were UTC: a Vega-Lite `utc`
 * scale then labels the axis in the site's time, whatever zone the browser is in.
 * @param ms epoch milliseconds.
 * @param zone the site's time zone.
 * @returns shifted milliseconds, for plotting only.
 */
export function wallClockMs(ms: number, zone: string): number {
  return ms + DateTime.fromMillis(ms, { zone }).offset * 60_000;
}

/**
 * Reads a `datetime-local` input value as a time in a zone.
 * @param local `YYYY-MM-DDTHH:mm`.
 * @param zone the zone the value is meant in.
 * @returns ISO 8601 with offset, or undefined for an empty or invalid value.
 */
export function localInputToIso(local: string, zone: string): string | undefined {
  if (!local) return undefined;
  const dt = DateTime.fromISO(local, { zone });
  return dt.isValid ? (dt.toISO({ suppressMilliseconds: true }) ?? undefined) : undefined;
}

/** @returns the value for a `datetime-local` input showing an instant in a zone. */
export function isoToLocalInput(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toFormat("yyyy-LL-dd'T'HH:mm");
}

/** @returns the next full hour from now, in epoch milliseconds. */
export const nextHourMs = (): number => DateTime.now().startOf('hour').plus({ hours: 1 }).toMillis();

/** @returns milliseconds as a short duration for people (`850 ms`, `12.3 s`, `4 min`). */
export function formatElapsed(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.round(ms / 60_000)} min`;
}

/** @returns an age in seconds for people: seconds, minutes, hours or days (`40 s`, `3 min`, `5 h`, `2 d`). */
export function formatAge(seconds: number): string {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 36 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
}
