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
 * Parses an ISO 8601 datetime that must carry a UTC offset; the offset is kept for echoing.
 * A space in place of `+` (an unescaped query string) is repaired. Offsets must lie within
 * ±23:59, as Python's datetime requires.
 * @param text the datetime text.
 * @returns the datetime, or 'naive' / 'invalid'.
 */
export function parseAwareDateTime(text: string): DateTime | 'naive' | 'invalid' {
  const fixed = text.trim().replace(/(T[\d:.,]+) (\d{2}(:?\d{2})?)$/i, '$1+$2');
  const dt = DateTime.fromISO(fixed, { setZone: true });
  if (!dt.isValid) return 'invalid';
  const offset = timeWithOffset.exec(fixed);
  if (!offset) return 'naive';
  if (offset[1].toUpperCase() !== 'Z' && (Number(offset[3]) > 23 || Number(offset[4] ?? 0) > 59)) return 'invalid';
  return dt;
}

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
