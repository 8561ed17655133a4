/** Drops undefined members, so a partial update never writes NULL over a field the client left out. */
export function defined<T extends Record<string, unknown>>(changes: T): Partial<T> {
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<T>;
}
