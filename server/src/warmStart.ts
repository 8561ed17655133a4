import { DateTime } from 'luxon';
import { parseAwareDateTime } from './domain/time.ts';

/**
 * Loads on the main thread, once per process, what the first request would otherwise load while
 * it waits: tens to hundreds of milliseconds on a busy machine, which the first schedule after
 * a start should not pay.
 */
export function warmMainThread(): void {
  // luxon resolves the system locale and a time zone's rules on first use.
  parseAwareDateTime('2026-01-01T00:00:00+01:00');
  DateTime.fromMillis(0, { zone: 'Europe/Amsterdam' }).toISO();
  // Koa compares every response body with `Response`, a global that Node loads, together with
  // the rest of its fetch implementation, on first access.
  void globalThis.Response;
}
