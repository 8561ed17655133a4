/**
 * The audit log events of changes made through the API, worded as FlexMeasures 1.0 words them;
 * values are written as JSON text.
 */

const shown = (v: unknown) => (v === undefined ? 'null' : typeof v === 'string' ? v : JSON.stringify(v));

/** One event per changed field of an asset (or sensor), and per changed attribute. */
export function changeEvents<T extends { attributes: Record<string, unknown> }>(
  before: T,
  changes: Partial<Record<keyof T, unknown>>,
): string[] {
  const events: string[] = [];
  for (const [key, to] of Object.entries(changes) as [keyof T & string, unknown][]) {
    if (to === undefined) continue;
    if (key === 'attributes') {
      const from: Record<string, unknown> = before.attributes;
      const next = to as Record<string, unknown>;
      for (const attr of new Set([...Object.keys(from), ...Object.keys(next)])) {
        if (JSON.stringify(from[attr]) !== JSON.stringify(next[attr])) {
          events.push(`Updated Attr: ${attr}, From: ${shown(from[attr])}, To: ${shown(next[attr])}`);
        }
      }
    } else if (JSON.stringify(before[key]) !== JSON.stringify(to)) {
      events.push(`Updated: ${key}, From: ${shown(before[key])}, To: ${shown(to)}`);
    }
  }
  return events;
}

/** The changes of a user's roles and standing that 1.0 records, in one event (empty: nothing to record). */
export function userChangeEvent(change: { removedRoles: string[]; addedRoles: string[]; active?: boolean }): string {
  let event = '';
  if (change.removedRoles.length) event += `Removed role(s): [${change.removedRoles.join(',')}].`;
  if (change.addedRoles.length) event += `Added role(s): [${change.addedRoles.join(',')}].`;
  // Python's spelling of the flag, as 1.0 writes it.
  if (change.active !== undefined) event += `Active status set to '${change.active ? 'True' : 'False'}'.`;
  return event;
}
