import type { Knex } from 'knex';
import { dialectOf } from '../../server/src/db/dialect.ts';

/** knex's own bookkeeping, which no API call may touch. */
const knexTables = ['knex_migrations', 'knex_migrations_lock'];

/** @returns the names of the application's tables, whatever migrations created them. */
export async function tableNames(db: Knex): Promise<string[]> {
  return dialectOf(db).tableNames(db);
}

/** @returns every row of every application table, to compare before and after a request that must change nothing. */
export async function snapshot(db: Knex): Promise<Record<string, string[]>> {
  const all: Record<string, string[]> = {};
  for (const table of await tableNames(db)) {
    // Sorted by content: some tables (beliefs) have no rowid to order by.
    const rows = (await db(table).select('*')) as unknown[];
    all[table] = rows.map((r) => JSON.stringify(r)).sort();
  }
  return all;
}

/** @returns the schema (tables, indexes) as the engine's catalog describes it, without knex's bookkeeping. */
export async function schema(db: Knex): Promise<unknown[]> {
  if (dialectOf(db).name === 'postgresql') {
    const columns = await db('information_schema.columns')
      .whereRaw('table_schema = current_schema()')
      .whereNotIn('table_name', knexTables)
      .orderBy(['table_name', 'ordinal_position'])
      .select('table_name', 'column_name', 'data_type', 'is_nullable', 'column_default');
    const indexes = await db('pg_indexes')
      .whereRaw('schemaname = current_schema()')
      .whereNotIn('tablename', knexTables)
      .orderBy('indexname')
      .select('tablename', 'indexname', 'indexdef');
    return [...columns, ...indexes];
  }
  return db('sqlite_master')
    .whereNot('name', 'like', 'sqlite_%')
    .whereNotIn('tbl_name', knexTables)
    .orderBy(['type', 'name'])
    .select('type', 'name', 'sql');
}

/** @returns rows whose foreign keys point at nothing, in any table (SQLite's own check; PostgreSQL never lets them exist). */
export async function danglingForeignKeys(db: Knex): Promise<unknown[]> {
  return dialectOf(db).name === 'sqlite' ? db.raw('PRAGMA foreign_key_check') : [];
}

/**
 * Finds rows in any table whose column of this name holds one of the ids, declared foreign key
 * or not (tables added later by other features are covered too).
 * @param column e.g. `sensor_id`.
 * @param ids the ids that must no longer be referenced.
 * @returns `table.column` → number of such rows, for the tables that have any.
 */
export async function rowsReferencing(db: Knex, column: string, ids: number[]): Promise<Record<string, number>> {
  const found: Record<string, number> = {};
  for (const table of await tableNames(db)) {
    if (!(await dialectOf(db).columnNames(db, table)).includes(column)) continue;
    const [{ n }] = await db(table).whereIn(column, ids).count<{ n: number }[]>({ n: '*' });
    if (Number(n) > 0) found[`${table}.${column}`] = Number(n);
  }
  return found;
}
