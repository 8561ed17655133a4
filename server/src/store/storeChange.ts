import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.ts';

/**
 * Where the store's count of writes (migration 0027) stood: `n` rises with every write to the
 * counted tables, whichever process writes; `newestBeliefMs` is the newest belief time ever written.
 */
export interface Count {
  n: number;
  newestBeliefMs: number;
}

/** The count's row, `newest` the newest belief time. */
const COUNT_SQL = 'SELECT n, newest_belief_time AS newest FROM store_change WHERE id = 1';

export const countOf = (row: { n: number | string; newest: number | string }): Count => ({
  n: Number(row.n),
  newestBeliefMs: Number(row.newest),
});

/** @returns the count now; nothing on a store that keeps no count (PostgreSQL). */
export async function readCount(db: Knex): Promise<Count | undefined> {
  if (!dialectOf(db).countsChanges) return undefined;
  const [row] = await dialectOf(db).query<{ n: number; newest: number }>(db, COUNT_SQL, []);
  return countOf(row);
}

/**
 * Whether what was read at `readMs`, with the count at `then` read before it, is still what a read
 * at any later time would find: nothing was written since, and no belief written before is dated
 * after `readMs` (one that is could become visible to a read bounded by the time it reads at).
 */
export const standsSince = (now: Count, then: Count, readMs: number) => now.n === then.n && now.newestBeliefMs <= readMs;
