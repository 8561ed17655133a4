import type { Knex } from 'knex';
import { emptyColumns, type BeliefColumns } from '../beliefColumns.ts';
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
export async function latestPerProbability(query: Knex.QueryBuilder): Promise<BeliefColumns> {
  const grouped = query
    .select({ es: 'event_start', src: 'source_id', cp: 'cumulative_probability', v: 'event_value' })
    .max({ bt: 'belief_time' })
    .groupBy('event_start', 'source_id', 'cumulative_probability')
    .toSQL()
    .toNative();
  const [{ n, rows }] = await runKept<{ n: number; rows: string | null }>(
    query,
    // OFFSET keeps SQLite from merging the inner query into the outer one, which would compute
    // the value's exponent again at each use. Probabilities other than the median are rare.
    `SELECT count(*) AS n, group_concat(es || ',' || src || ',' || CASE WHEN cp = 0.5 THEN '1,-1' ELSE ${exact('cp', exponent('cp'))} END
       || ',' || bt || ',' || ${exact('v', 'v_e')}, ',') AS rows
     FROM (SELECT *, ${exponent('v')} AS v_e FROM (${grouped.sql}) LIMIT -1 OFFSET 0)`,
    grouped.bindings,
  );
  if (rows === null) return emptyColumns(0);
  return parse(rows, n);
}

/**
 * The exponent e of a double x written as m × 2^e with m an integer: 54 below its binary
 * logarithm truncated (log2 may round across a power of two, and truncation rounds negative
 * logarithms up, so m stays an integer and below 2^57 either way), at least −1074, where subnormal
 * doubles stop; 0 for zero.
 */
const exponent = (x: string) => `ifnull(max(CAST(log2(abs(${x})) AS INTEGER) - 54, -1074), 0)`;

/**
 * `m,e` of a double x whose exponent is in `x_e`, m in hexadecimal: m = x × 2^−e, exact as a
 * power-of-two scaling; in two steps below 2^−1023, whose inverse is beyond a double.
 */
const exact = (x: string, e: string) =>
  `CASE WHEN ${x} < 0 THEN '-' ELSE '' END || printf('%x', CAST(CASE WHEN ${e} >= -1023 THEN abs(${x}) * pow(2, -${e})
     ELSE abs(${x}) * pow(2, 1023) * pow(2, -${e} - 1023) END AS INTEGER)) || ',' || ${e}`;

/**
 * The numbers of the text: per row event start, source, the probability's m and e, belief time
 * and the value's m and e. Digits accumulate exactly: every number but m is below 2^53, and m is
 * below 2^57, so each of its hexadecimal prefixes is below 2^53 and the last digit's sum is m,
 * a double. They go straight into columns, one entry for each of the `count` rows.
 */
function parse(text: string, count: number): BeliefColumns {
  const out = emptyColumns(count);
  const { es, src, cp, bt, v } = out;
  const row = new Float64Array(7);
  let r = 0;
  let field = 0;
  let radix = 10;
  let n = 0;
  let negative = false;
  for (let at = 0; at <= text.length; at++) {
    const c = at < text.length ? text.charCodeAt(at) : COMMA;
    if (c === COMMA) {
      row[field] = negative ? -n : n;
      n = 0;
      negative = false;
      if (++field === 7) {
        es[r] = row[0];
        src[r] = row[1];
        cp[r] = row[2] * 2 ** row[3];
        bt[r] = row[4];
        v[r++] = row[5] * 2 ** row[6];
        field = 0;
      }
      radix = field === 2 || field === 5 ? 16 : 10;
    } else if (c === MINUS) negative = true;
    else n = n * radix + (c <= NINE ? c - ZERO : c - LOWER_A + 10);
  }
  return out;
}

const [COMMA, MINUS, ZERO, NINE, LOWER_A] = [',', '-', '0', '9', 'a'].map((c) => c.charCodeAt(0));
