import { DateTime } from 'luxon';
import { parseIsoDuration } from '../domain/time.ts';
import type { Automation } from '../store/automations.ts';

/** A run's due time, and the end of its horizon; or why the horizon cannot be read. */
export function dueWindow(automation: Pick<Automation, 'horizon' | 'timezone'>, dueMs: number) {
  const horizon = parseIsoDuration(automation.horizon);
  if (typeof horizon === 'string') return horizon;
  const start = DateTime.fromMillis(dueMs, { zone: automation.timezone });
  return { horizon, start, endMs: start.plus(horizon.luxon).toMillis() };
}
