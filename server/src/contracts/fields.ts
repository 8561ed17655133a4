import { z } from 'zod';
import type { DateTime } from 'luxon';
import { parseAwareDateTime, parseIsoDuration, type IsoDuration } from '../domain/time.ts';

/**
 * Longest text a datetime, duration or time zone name can sensibly have. Checked first and
 * aborting, so an oversized value is refused without being parsed or echoed in the message.
 */
const shortText = () => z.string().max(64, { abort: true });

/** A timezone-aware ISO 8601 datetime; naive datetimes are refused. */
export const awareDateTime = shortText()
  .transform((text, ctx): DateTime => {
    const dt = parseAwareDateTime(text);
    if (typeof dt !== 'string') return dt;
    ctx.addIssue({
      code: 'custom',
      message: dt === 'naive' ? 'Not a valid aware datetime.' : 'Not a valid datetime.',
    });
    return z.NEVER;
  })
  .meta({ type: 'string', format: 'date-time' });

/** An ISO 8601 duration in whole minutes (`PT15M`, `P0DT0H15M0S`, `P1D`, `-PT10M`). */
export const isoDuration = shortText()
  .transform((text, ctx): IsoDuration => {
    const d = parseIsoDuration(text);
    if (typeof d === 'string') {
      ctx.addIssue({ code: 'custom', message: `Cannot parse ${text} as ISO8601 duration: ${d}` });
      return z.NEVER;
    }
    if (!d.nominal && d.ms % 60_000 !== 0) {
      ctx.addIssue({ code: 'custom', message: 'FlexMeasures only support multiples of 1 minute.' });
      return z.NEVER;
    }
    return d;
  })
  .meta({ type: 'string', format: 'duration' });

/** A non-negative fixed-length duration, in milliseconds (sensor resolutions). */
export const fixedDurationMs = isoDuration.transform((d, ctx) => {
  if (d.nominal || d.ms < 0) {
    ctx.addIssue({ code: 'custom', message: 'Only fixed, non-negative durations are supported here.' });
    return z.NEVER;
  }
  return d.ms;
});

/** Deepest nesting of objects and arrays accepted in a request body or a JSON text field. */
export const MAX_JSON_DEPTH = 64;
export const tooDeepMessage = `Nested deeper than ${MAX_JSON_DEPTH} levels.`;

/**
 * Finds where a JSON value nests deeper than MAX_JSON_DEPTH, without recursion (the value may
 * be thousands of levels deep).
 * @param value the parsed JSON.
 * @returns the top-level key under which it is too deep (empty for the value itself), or undefined.
 */
export function tooDeepPath(value: unknown): PropertyKey[] | undefined {
  const stack: [unknown, number, PropertyKey[]][] = [[value, 0, []]];
  while (stack.length) {
    const [node, depth, top] = stack.pop()!;
    if (!node || typeof node !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return top;
    for (const [key, child] of Object.entries(node)) stack.push([child, depth + 1, depth === 0 && !Array.isArray(node) ? [key] : top]);
  }
  return undefined;
}

/** A JSON value carried as JSON text, at most 64 KiB and not nested too deep. */
export const jsonValueText = z
  .string()
  .max(65_536, { abort: true })
  .transform((text, ctx): unknown => {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'Not a valid JSON string.' });
      return z.NEVER;
    }
    if (tooDeepPath(value)) {
      ctx.addIssue({ code: 'custom', message: tooDeepMessage });
      return z.NEVER;
    }
    return value;
  });

/** A JSON object carried as JSON text (`attributes` of sensors and assets travel this way). */
export const jsonText = jsonValueText.transform((value, ctx): Record<string, unknown> => {
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  ctx.addIssue({ code: 'custom', message: 'Not a valid JSON string.' });
  return z.NEVER;
});

/** An integer field; zod cannot tell "not an integer" from "not a number" on its own. */
export const int = () => z.int({ error: 'Not a valid integer.' });

/** A database id: a positive safe integer. */
export const id = int().min(1);

/** An integer from a URL part or query string; out-of-range or non-digit text is "Not a valid integer.". */
export const intText = z.union([int(), z.string()]).transform((v, ctx) => {
  // Leading zeros and blanks are refused: `/assets/04` and `/assets/%201` must not be other names of asset 4 and 1.
  const n = typeof v === 'number' ? v : /^-?(0|[1-9]\d*)$/.test(v) ? Number(v) : NaN;
  if (Number.isSafeInteger(n)) return n;
  ctx.addIssue({ code: 'custom', message: 'Not a valid integer.' });
  return z.NEVER;
});

const truthy = new Set(['true', '1', 'yes', 'y', 'on', 't']);
const falsy = new Set(['false', '0', 'no', 'n', 'off', 'f']);
/** A boolean from a query string, accepting Python-cased `True`/`False` as clients send them. */
export const boolText = z.union([z.boolean(), z.string()]).transform((v, ctx) => {
  if (typeof v === 'boolean') return v;
  const key = v.trim().toLowerCase();
  if (truthy.has(key)) return true;
  if (falsy.has(key)) return false;
  ctx.addIssue({ code: 'custom', message: 'Not a valid boolean.' });
  return z.NEVER;
});

/** Names and other free text: bounded so a megabyte string is refused, not stored. */
export const text = (max = 255) => z.string().trim().min(1).max(max);

/** An IANA time zone name. */
export const timezone = shortText().refine(
  (tz) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: tz });
      return true;
    } catch {
      return false;
    }
  },
  { error: (iss) => `Timezone ${String(iss.input)} doesn't exist.` },
);
