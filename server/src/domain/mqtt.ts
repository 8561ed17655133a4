import { createHash } from 'node:crypto';
import { instantMs } from './time.ts';

/**
 * MQTT's rules as the device links use them, without I/O: topic filters, reading a value out of
 * a payload, and turning readings that arrive every few seconds into a sensor's intervals.
 */

/** Why a topic filter is not one (MQTT 3.1.1 §4.7), or undefined when it is. */
export function topicFilterProblem(filter: string): string | undefined {
  if (filter === '' || filter.length > 1024) return 'A topic is 1 to 1024 characters long.';
  if (filter.includes('\0')) return 'A topic cannot hold a NUL character.';
  if (filter.startsWith('$')) return 'Topics starting with $ belong to the broker.';
  const levels = filter.split('/');
  for (const [i, level] of levels.entries()) {
    if (level.includes('#') && (level !== '#' || i !== levels.length - 1)) return "'#' stands alone as the last level of a topic filter.";
    if (level.includes('+') && level !== '+') return "'+' stands alone in its level of a topic filter.";
  }
  return undefined;
}

/** Whether a topic (no wildcards) matches a filter: a topic is the filter of itself alone. */
export const topicMatches = (filter: string, topic: string): boolean => filterWithin(topic, filter);

/** Whether some topic matches both filters: two links whose filters overlap would both receive it. */
export function filtersOverlap(a: string, b: string): boolean {
  const x = a.split('/');
  const y = b.split('/');
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    if (x[i] === '#' || y[i] === '#') return true;
    if (x[i] === undefined || y[i] === undefined) return false;
    if (x[i] !== '+' && y[i] !== '+' && x[i] !== y[i]) return false;
  }
  return true;
}

/** Whether every topic matching `inner` also matches `outer`. */
export function filterWithin(inner: string, outer: string): boolean {
  const i = inner.split('/');
  const o = outer.split('/');
  for (let k = 0; k < o.length; k++) {
    if (o[k] === '#') return true;
    if (k >= i.length || i[k] === '#' || (o[k] !== '+' && (i[k] === '+' || i[k] !== o[k]))) return false;
  }
  return i.length === o.length;
}

const PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** Why a value path is not a simple dotted path (`emeters.0.power`), or undefined when it is. */
export function valuePathProblem(path: string): string | undefined {
  return PATH.test(path) && path.length <= 255 ? undefined : 'Expected a dotted path of names and indexes, such as emeters.0.power.';
}

/** What a payload held: a value, or why it holds none. */
export type PayloadValue = { value: number; timeMs?: number } | { problem: string };

/** Follows a dotted path through parsed JSON: names of objects, indexes of arrays; never evaluated. */
function follow(doc: unknown, path: string): unknown {
  let at = doc;
  for (const step of path.split('.')) {
    if (Array.isArray(at) && /^\d+$/.test(step)) at = at[Number(step)];
    else if (at !== null && typeof at === 'object' && !Array.isArray(at) && Object.hasOwn(at, step))
      at = (at as Record<string, unknown>)[step];
    else return undefined;
  }
  return at;
}

/** A number given as a JSON number or a numeric string; undefined for anything else. */
function numberOf(x: unknown): number | undefined {
  if (typeof x === 'number') return Number.isFinite(x) ? x : undefined;
  if (typeof x === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/.test(x)) return Number(x);
  return undefined;
}

/** A time given as epoch seconds or milliseconds (told apart by size) or an ISO 8601 text with its offset. */
function timeOf(x: unknown): number | undefined {
  const n = numberOf(x);
  // Epoch seconds stay below 1e11 until the year 5138; milliseconds passed it in 1973.
  if (n !== undefined) return n < 1e11 ? Math.round(n * 1000) : Math.round(n);
  return typeof x === 'string' && x.length <= 64 ? instantMs(x) : undefined;
}

/**
 * Reads the value (and, when the link says where, the time) of a payload: a plain number, or
 * JSON with the value at `valuePath`.
 */
export function readPayload(payload: string, valuePath: string | null, timePath: string | null): PayloadValue {
  if (payload.length > 65_536) return { problem: 'payload over 64 kB' };
  let doc: unknown;
  if (valuePath === null && timePath === null) doc = payload;
  else {
    try {
      doc = JSON.parse(payload);
    } catch {
      return { problem: 'payload is not JSON' };
    }
  }
  const value = numberOf(valuePath === null ? doc : follow(doc, valuePath));
  if (value === undefined) return { problem: valuePath === null ? 'payload is not a number' : `no number at ${valuePath}` };
  if (timePath === null) return { value };
  const timeMs = timeOf(follow(doc, timePath));
  return timeMs === undefined ? { problem: `no time at ${timePath}` } : { value, timeMs };
}

export interface Reading {
  timeMs: number;
  value: number;
}

/**
 * The time-weighted mean of each interval of `resolutionMs` from `fromMs` to `toMs`: a reading
 * holds until the next one, but at most `holdMs` (a device that fell silent is not assumed to
 * keep its last value). An interval no reading covers has no mean.
 * @param readings in time order; the last one before `fromMs` carries into the first interval.
 */
export function intervalMeans(readings: readonly Reading[], fromMs: number, toMs: number, resolutionMs: number, holdMs: number): Reading[] {
  const sums = new Map<number, { weighted: number; covered: number }>();
  for (const [i, r] of readings.entries()) {
    const holdEnd = Math.min(r.timeMs + holdMs, readings[i + 1]?.timeMs ?? Infinity, toMs);
    let at = Math.max(r.timeMs, fromMs);
    while (at < holdEnd) {
      const start = fromMs + Math.floor((at - fromMs) / resolutionMs) * resolutionMs;
      const until = Math.min(holdEnd, start + resolutionMs);
      const sum = sums.get(start) ?? { weighted: 0, covered: 0 };
      sum.weighted += r.value * (until - at);
      sum.covered += until - at;
      sums.set(start, sum);
      at = until;
    }
  }
  return [...sums.entries()].sort(([a], [b]) => a - b).map(([timeMs, s]) => ({ timeMs, value: s.weighted / s.covered }));
}

/**
 * A device password is 32 random bytes, so a fast hash is as safe as a slow one (nothing to
 * guess from), and the broker checks it at every connection without a worker thread.
 */
export const hashDevicePassword = (password: string) => createHash('sha256').update(password).digest('hex');
