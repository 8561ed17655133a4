/**
 * The rows of `Dialect.latestPerProbability` as columns, one typed array per column: a year of
 * beliefs is five arrays rather than 35,040 objects with a property per column.
 */
export interface BeliefColumns {
  length: number;
  /** Event start (ms). */
  es: Float64Array;
  /** Source id. */
  src: Float64Array;
  /** Cumulative probability. */
  cp: Float64Array;
  /** Belief time (ms). */
  bt: Float64Array;
  /** Event value. */
  v: Float64Array;
}

/** Columns for `length` rows, zero-filled. */
export const emptyColumns = (length: number): BeliefColumns => ({
  length,
  es: new Float64Array(length),
  src: new Float64Array(length),
  cp: new Float64Array(length),
  bt: new Float64Array(length),
  v: new Float64Array(length),
});

/** The columns of rows {es, src, cp, bt, v} (numbers, or their text where a driver gives text). */
export function columnsOfRows(rows: readonly Record<keyof Omit<BeliefColumns, 'length'>, unknown>[]): BeliefColumns {
  const out = emptyColumns(rows.length);
  rows.forEach((r, i) => {
    out.es[i] = Number(r.es);
    out.src[i] = Number(r.src);
    out.cp[i] = Number(r.cp);
    out.bt[i] = Number(r.bt);
    out.v[i] = Number(r.v);
  });
  return out;
}
