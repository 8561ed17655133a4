/*
 * Readers for the columns of a row as the drivers hand it back: PostgreSQL gives bigints and
 * aggregates as text where SQLite gives numbers, and a NULL column may come back as null or undefined.
 */

/** A nullable number column. */
export const numberOrNull = (x: unknown): number | null => (x === null || x === undefined ? null : Number(x));

/** A nullable text column. */
export const textOrNull = (x: unknown): string | null => (x as string | null | undefined) ?? null;
