import { DateTime, Duration } from 'luxon';

/** A parsed ISO 8601 duration. `nominal` durations (months, years) have no fixed length. */
export interface IsoDuration {
  ms: number;
  nominal: boolean;
  luxon: Duration;
}

/**
 * Parses every ISO 8601 duration form clients send: `PT15M`, `P0DT0H15M0S` (pandas),
 * `P1D`, `-PT10M`, fractional seconds.
 * @param text the duration text.
 * @returns the duration, or a human explanation of why it cannot be parsed.
 */
export function parseIsoDuration(text: string): IsoDuration | string {
  const negative = text.startsWith('-');
  const body = negative ? text.slice(1) : text;
  // Luxon reads "P" and "PT" as zero; ISO 8601 wants at least one number after each designator.
  if (/^P(.*T)?$/i.test(body)) return 'a duration needs at least one number and unit after P and after T';
  const d = Duration.fromISO(body);
  if (!d.isValid) return d.invalidExplanation ?? 'not an ISO 8601 duration';
  const signed = negative ? d.negate() : d;
  const nominal = d.years !== 0 || d.quarters !== 0 || d.months !== 0;
  return { ms: signed.as('milliseconds'), nominal, luxon: signed };
}

/**
 * Formats a duration with hours never folded into days (`PT48H`, `PT1H20M`, zero `PT0H`),
 * as data and schedule messages do.
 * @param ms the duration in milliseconds.
 * @returns the ISO 8601 text.
 */
export function formatDurationHours(ms: number): string {
  if (ms === 0) return 'PT0H';
  const sign = ms < 0 ? '-' : '';
  return sign + 'PT' + timeParts(Math.abs(ms), 'PT0H').slice(2);
}

/**
 * Formats a sensor resolution with whole days (`PT15M`, `PT1H`, `P1D`, `P1DT2H`, zero `P0D`).
 * @param ms the resolution in milliseconds.
 * @returns the ISO 8601 text.
 */
export function formatResolution(ms: number): string {
  if (ms === 0) return 'P0D';
  const day = 86_400_000;
  const days = Math.floor(ms / day);
  const rest = ms - days * day;
  if (rest === 0) return `P${days}D`;
  return (days ? `P${days}D` : 'P') + timeParts(rest, '').slice(1);
}

function timeParts(ms: number, zero: string): string {
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor((ms % 3_600_000) / 60_000);
  const s = (ms % 60_000) / 1000;
  const text = (h ? `${h}H` : '') + (m ? `${m}M` : '') + (s ? `${s}S` : '');
  return text ? `PT${text}` : zero;
}

/**
 * Formats a duration as Python's timedelta prints it (`0:05:00`, `1 day, 0:00:00`), because
 * resolution error messages of the reference use that form.
 * @param ms the duration in milliseconds.
 * @returns the text.
 */
export function formatTimedelta(ms: number): string {
  // In whole microseconds, as Python's timedelta keeps (and rounds) them.
  const us = Math.round(ms * 1000);
  const day = 86_400_000_000;
  const days = Math.floor(us / day);
  let rest = us - days * day;
  const h = Math.floor(rest / 3_600_000_000);
  rest -= h * 3_600_000_000;
  const m = Math.floor(rest / 60_000_000);
  rest -= m * 60_000_000;
  const s = Math.floor(rest / 1_000_000);
  const micro = rest - s * 1_000_000;
  const clock = `${h}:${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
  const frac = micro ? `.${String(micro).padStart(6, '0')}` : '';
  return (days ? `${days} day${Math.abs(days) === 1 ? '' : 's'}, ` : '') + clock + frac;
}

/** A clock time followed by its offset: a date alone ("2030-01-01") has no offset, its "-01" is the day. */
const timeWithOffset = /T\d{2}(?::?\d{2}(?::?\d{2}(?:[.,]\d+)?)?)?(Z|([+-])(\d{2}):?(\d{2})?)$/i;

/**
 * Forms Luxon reads but Python's `datetime.fromisoformat` (and so FlexMeasures) refuses: ordinal
 * dates (`2015-001`), hour 24, a lower-case `z`.
 */
const pythonRefuses = /^\d{4}-?\d{3}(?:T|$)|T24|z$/;

export interface DateTimeOptions {
  /**
   * A space may stand for the `T` (and precede the offset), as Python and pandas read stored
   * attributes and data files. Off for API fields: FlexMeasures reads a space there as an
   * unescaped `+`, which this parser repairs instead.
   */
  spaceForT?: boolean;
  /** A datetime without offset is local time in this zone (data files); without it, 'naive'. */
  naiveZone?: string;
}

/**
 * The one parser of every ISO 8601 datetime a user writes (API fields, stored attributes, data
 * files, legacy messages): offsets `Z`, `±hh`, `±hhmm`, `±hh:mm`; seconds and fractions optional.
 * A space in place of `+` (an unescaped query string) is repaired. Offsets must lie within
 * ±23:59, as Python's datetime requires.
 * @param text the datetime text.
 * @returns the datetime with the offset it was written in (kept for echoing), or 'naive' / 'invalid'.
 */
export function parseAwareDateTime(text: string, options: DateTimeOptions = {}): DateTime | 'naive' | 'invalid' {
  let fixed = text.trim();
  if (options.spaceForT) fixed = fixed.replace(/^(\d{4}-\d{2}-\d{2}) (?=\d)/, '$1T').replace(/(T[\d:.,]+) (?=[+-]\d|Z$)/, '$1');
  fixed = fixed.replace(/(T[\d:.,]+) (\d{2}(:?\d{2})?)$/i, '$1+$2');
  // A time alone would be read as today's.
  if (pythonRefuses.test(fixed) || !/^\d{4}-?(?:\d{2}|W\d{2})/.test(fixed)) return 'invalid';
  const offset = timeWithOffset.exec(fixed);
  const zone = offset ? undefined : options.naiveZone;
  const dt = DateTime.fromISO(fixed, zone ? { zone, setZone: true } : { setZone: true });
  if (!dt.isValid) return 'invalid';
  if (!offset) return zone ? dt : 'naive';
  if (offset[1].toUpperCase() !== 'Z' && (Number(offset[3]) > 23 || Number(offset[4] ?? 0) > 59)) return 'invalid';
  return dt;
}

/**
 * The instant an aware datetime names.
 * @returns epoch milliseconds, or undefined when the text is no aware datetime.
 */
export function instantMs(text: string, options: DateTimeOptions = {}): number | undefined {
  const dt = parseAwareDateTime(text, options);
  return typeof dt === 'string' ? undefined : dt.toMillis();
}

/**
 * The instant of a stored datetime attribute (such as 0.18's `soc_datetime`), read as Python
 * reads it: a space may stand for the `T`; a datetime without offset names no instant.
 * @returns epoch milliseconds, or undefined when the value is no aware datetime.
 */
export const storedInstantMs = (value: unknown): number | undefined =>
  typeof value === 'string' && value.length <= 64 ? instantMs(value, { spaceForT: true }) : undefined;

/**
 * Formats an instant as `YYYY-MM-DDTHH:MM:SS±HH:MM` in the given datetime's offset, a zero
 * offset printed as `Z`, the way data and schedule messages report their start.
 * @param dt the instant with the offset to show.
 * @returns the text.
 */
export function formatStart(dt: DateTime): string {
  const text = dt.toISO({ suppressMilliseconds: true, includeOffset: true }) ?? '';
  return dt.offset === 0 ? text.replace(/(\+00:00|Z)$/, 'Z') : text;
}

/** An instant as ISO 8601 text in UTC, or null for none: the API's times that may not be there. */
export const isoOrNull = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());
