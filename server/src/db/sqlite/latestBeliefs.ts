import type { Knex } from 'knex';
import { runKept } from './statements.ts';

/**
 * The most recent belief per event, source and cumulative probability of a belief query, as
 * `Dialect.latestPerProbability` describes. SQLite takes the bare columns of a MAX() aggregate
 * from the row holding the maximum: the value comes with its belief time, without a join back
 * into the table.
 *
 * The rows come back as one text of integers: node-sqlite3 builds a JS object per row with a
 * property per column, which cost most of a year's read (35,040 rows × 5 columns). Doubles
 * travel as two integers m and e, the double being m × 2^e, which text carries exactly; SQLite's
 * own double-to-text conversion is not exact (a few in 100,000 random doubles come back one unit
 * in the last place off).
 */
export async function latestPerProbability<T>(query: Knex.QueryBuilder): Promise<T[]> {
  const grouped = query
    .select({ es: 'event_start', src: 'source_id', cp: 'cumulative_probability', v: 'event_value' })
    .max({ bt: 'belief_time' })
    .groupBy('event_start', 'source_id', 'cumulative_probability')
    .toSQL()
    .toNative();
  const [{ rows }] = await runKept<{ rows: string | null }>(
    query,
    // OFFSET keeps SQLite from merging the inner query into the outer one, which would compute
    // the value's exponent again at each use. Probabilities other than the median are rare.
    `SELECT group_concat(es || ',' || src || ',' || CASE WHEN cp = 0.5 THEN '1,-1' ELSE ${exact('cp', exponent('cp'))} END
       || ',' || bt || ',' || ${exact('v', 'v_e')}, ',') AS rows
     FROM (SELECT *, ${exponent('v')} AS v_e FROM (${grouped.sql}) LIMIT -1 OFFSET 0)`,
    grouped.bindings,
  );
  if (rows === null) return [];
  const next = integers(rows);
  const out: { es: number; src: number; cp: number; bt: number; v: number }[] = [];
  while (next.more()) out.push({ es: next(), src: next(), cp: next() * 2 ** next(), bt: next(), v: next() * 2 ** next() });
  return out as T[];
}

/**
 * The exponent e of a double x written as m × 2^e with m an integer: 54 below its binary
 * logarithm truncated (log2 may round across a power of two, and truncation rounds negative
 * logarithms up, so m stays an integer and below 2^57 either way), at least −1074, where subnormal
 * doubles stop; 0 for zero.
 */
const exponent = (x: string) => `ifnull(max(CAST(log2(abs(${x})) AS INTEGER) - 54, -1074), 0)`;

/**
 * `m,e` of a double x whose exponent is in `x_e`: m = x × 2^−e, exact as a power-of-two scaling;
 * in two steps below 2^−1023, whose inverse is beyond a double.
 */
const exact = (x: string, e: string) =>
  `CAST(CASE WHEN ${e} >= -1023 THEN ${x} * pow(2, -${e}) ELSE ${x} * pow(2, 1023) * pow(2, -${e} - 1023) END AS INTEGER) || ',' || ${e}`;

/**
 * Reads the comma-separated integers of a text one by one without slicing it: the digits
 * accumulate exactly up to 15 of them (below 2^53); longer ones go through `Number`.
 */
function integers(text: string): { (): number; more(): boolean } {
  let at = 0;
  const next = () => {
    const start = at;
    const negative = text.charCodeAt(at) === 45; // '-'
    if (negative) at++;
    let n = 0;
    let c: number;
    while (at < text.length && (c = text.charCodeAt(at)) !== 44) {
      n = n * 10 + c - 48;
      at++;
    }
    const digits = at - start - (negative ? 1 : 0);
    if (digits > 15) n = Math.abs(Number(text.slice(start, at)));
    at++; // the comma
    return negative ? -n : n;
  };
  next.more = () => at < text.length;
  return next;
}
