import type { Knex } from 'knex';
import { dialectOf } from './dialect.ts';
import { BackupError } from './errors.ts';
import { migrate } from './connection.ts';
import { foreignKeys, resetIdSequences } from './postgresql/index.ts';

/** Beliefs are copied in pages of this many rows: bounded memory, and few round trips. */
const PAGE = 5000;
/** PostgreSQL takes at most 65535 parameters per statement. */
const INSERT_ROWS = 1000;
const BELIEF_KEY = ['sensor_id', 'event_start', 'source_id', 'cumulative_probability', 'belief_time'] as const;

export interface ExportProgress {
  table: string;
  /** Rows copied so far, over all tables. */
  done: number;
  total: number;
}

/** Tables ordered so that every table comes after the tables it references. */
function parentsFirst(tables: string[], keys: { table: string; references: string }[]): string[] {
  const ordered: string[] = [];
  const visit = (table: string, path: string[]) => {
    if (ordered.includes(table) || path.includes(table)) return;
    for (const k of keys) if (k.table === table && k.references !== table) visit(k.references, [...path, table]);
    ordered.push(table);
  };
  for (const t of tables) visit(t, []);
  return ordered;
}

/** Rows of a self-referencing table ordered so that each row comes after the row it points to. */
function rowsParentsFirst(rows: Record<string, unknown>[], column: string): Record<string, unknown>[] {
  const placed = new Set<unknown>();
  const ordered: Record<string, unknown>[] = [];
  let left = rows;
  while (left.length) {
    const ready = left.filter((r) => r[column] === null || placed.has(r[column]) || r[column] === r.id);
    if (!ready.length) throw new BackupError(`rows of a table point to rows that do not exist (${column})`);
    for (const r of ready) placed.add(r.id);
    ordered.push(...ready);
    left = left.filter((r) => !ready.includes(r));
  }
  return ordered;
}

/**
 * Copies a SQLite store into an empty PostgreSQL database, in one transaction: either all of it
 * arrives or nothing does. Both are brought to the latest schema first.
 * @param source the SQLite store (no server may be writing to it).
 * @param target the PostgreSQL database; it must hold no accounts yet.
 * @param onProgress called after every page of rows.
 * @returns the number of rows copied per table.
 */
export async function exportStore(
  source: Knex,
  target: Knex,
  onProgress: (p: ExportProgress) => void = () => {},
): Promise<Record<string, number>> {
  if (dialectOf(source).name !== 'sqlite' || dialectOf(target).name !== 'postgresql') {
    throw new BackupError('db export-to copies the SQLite store of a data folder into a PostgreSQL database.');
  }
  await migrate(source);
  await migrate(target);
  if (await target('account').first('id')) {
    throw new BackupError('The target database already has accounts: export into a new, empty database.');
  }
  const keys = await foreignKeys(target);
  const tables = parentsFirst(await dialectOf(target).tableNames(target), keys);
  const counts: Record<string, number> = {};
  for (const t of tables) counts[t] = Number((await source(t).count({ n: '*' }))[0].n);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  let done = 0;
  await target.transaction(async (trx) => {
    // The migrations' seeded rows (roles, asset types) come along with the store's own ids.
    for (const t of [...tables].reverse()) await trx(t).delete();
    for (const table of tables) {
      const insert = async (rows: Record<string, unknown>[]) => {
        for (let i = 0; i < rows.length; i += INSERT_ROWS) await trx(table).insert(rows.slice(i, i + INSERT_ROWS));
        done += rows.length;
        onProgress({ table, done, total });
      };
      if (table === 'timed_belief') {
        await copyBeliefs(source, insert);
        continue;
      }
      // Everything but the beliefs is the site's metadata: small enough to read at once.
      let rows = (await source(table).select()) as Record<string, unknown>[];
      const self = keys.find((k) => k.table === table && k.references === table);
      if (self) rows = rowsParentsFirst(rows, self.column);
      await insert(rows);
    }
    await resetIdSequences(trx);
  });
  return counts;
}

/** Pages through the beliefs in key order, each page starting after the last key of the one before. */
async function copyBeliefs(source: Knex, insert: (rows: Record<string, unknown>[]) => Promise<void>): Promise<void> {
  let after: Knex.Value[] | undefined;
  for (;;) {
    const q = source('timed_belief')
      .select()
      .orderBy([...BELIEF_KEY])
      .limit(PAGE);
    if (after) q.whereRaw(`(${BELIEF_KEY.join(', ')}) > (${BELIEF_KEY.map(() => '?').join(', ')})`, after);
    const rows = (await q) as Record<string, unknown>[];
    if (!rows.length) return;
    await insert(rows);
    const last = rows[rows.length - 1];
    after = BELIEF_KEY.map((k) => last[k] as Knex.Value);
  }
}
