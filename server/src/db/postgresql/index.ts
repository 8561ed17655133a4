import knex, { type Knex } from 'knex';
import { columnsOfRows } from '../beliefColumns.ts';
import type { Dialect } from '../dialect.ts';
import { BackupError } from '../errors.ts';

/** PostgreSQL type ids whose text the driver would otherwise hand over as strings. */
const INT8 = 20;
const NUMERIC = 1700;

interface PgConnection {
  setTypeParser(oid: number, format: 'text', parse: (text: string) => unknown): void;
}

/**
 * The shared store of a scale-out installation: any number of API and worker processes use one
 * PostgreSQL database (`FLEXSITE_DATABASE_URL`).
 */
export const postgresql: Dialect = {
  name: 'postgresql',
  client: 'pg',
  // Every writer would queue for the one counter row until it commits (see migration 0027).
  countsChanges: false,

  open(url) {
    return knex({
      client: 'pg',
      connection: url,
      pool: {
        min: 0,
        max: 10,
        afterCreate(conn: PgConnection, done: (err: Error | null, conn: PgConnection) => void) {
          // Times are epoch milliseconds in BIGINT columns, and counts are BIGINT: all well within
          // 2^53, so they are numbers as they are on SQLite, not strings.
          conn.setTypeParser(INT8, 'text', Number);
          conn.setTypeParser(NUMERIC, 'text', Number);
          done(null, conn);
        },
      },
    });
  },

  // The pool of `open` reads concurrently already.
  openReaders: (_url, writer) => writer,

  latestPerProbability: async (query: Knex.QueryBuilder) =>
    columnsOfRows(
      await query
        .distinctOn(['event_start', 'source_id', 'cumulative_probability'])
        .select({ es: 'event_start', src: 'source_id', cp: 'cumulative_probability', bt: 'belief_time', v: 'event_value' })
        .orderBy([
          { column: 'event_start' },
          { column: 'source_id' },
          { column: 'cumulative_probability' },
          { column: 'belief_time', order: 'desc' },
        ]),
    ),

  rows: <T>(result: unknown) => (result as { rows: T[] }).rows,

  // node-postgres sends the statement and its parameters in one round trip already.
  query: async <T>(db: Knex | Knex.Transaction, sql: string, bindings: readonly unknown[]) =>
    ((await db.raw(sql, bindings as Knex.RawBinding[])) as { rows: T[] }).rows,

  // Many processes share the database; none owns it.
  async lockStore() {
    return { release: async () => {} };
  },

  async backup() {
    throw new BackupError(
      'The store is a PostgreSQL database: back it up with pg_dump, e.g. ' +
        '`pg_dump --format=custom --file=flexsite.dump "$FLEXSITE_DATABASE_URL"`, and restore it with pg_restore.',
    );
  },

  async tableNames(db) {
    return db('information_schema.tables')
      .whereRaw('table_schema = current_schema()')
      .where({ table_type: 'BASE TABLE' })
      .whereNotIn('table_name', ['knex_migrations', 'knex_migrations_lock'])
      .orderBy('table_name')
      .pluck('table_name');
  },

  async columnNames(db, table) {
    return db('information_schema.columns')
      .whereRaw('table_schema = current_schema()')
      .where({ table_name: table })
      .orderBy('ordinal_position')
      .pluck('column_name');
  },
};

/**
 * The foreign keys of the current schema, for copying tables parents first.
 * @returns one entry per referencing column.
 */
export async function foreignKeys(db: Knex): Promise<{ table: string; column: string; references: string }[]> {
  const result = await db.raw(`
    select kcu.table_name as "table", kcu.column_name as "column", ccu.table_name as "references"
    from information_schema.table_constraints tc
    join information_schema.key_column_usage kcu
      on kcu.constraint_name = tc.constraint_name and kcu.constraint_schema = tc.constraint_schema
    join information_schema.constraint_column_usage ccu
      on ccu.constraint_name = tc.constraint_name and ccu.constraint_schema = tc.constraint_schema
    where tc.constraint_type = 'FOREIGN KEY' and tc.table_schema = current_schema()`);
  return (result as { rows: { table: string; column: string; references: string }[] }).rows;
}

/**
 * Points each serial id's sequence past the ids copied in, so new rows do not collide with them.
 */
export async function resetIdSequences(db: Knex | Knex.Transaction): Promise<void> {
  const { rows } = (await db.raw(`
    select table_name as "table", pg_get_serial_sequence(quote_ident(table_name), 'id') as seq
    from information_schema.columns
    where table_schema = current_schema() and column_name = 'id' and column_default like 'nextval(%'`)) as {
    rows: { table: string; seq: string }[];
  };
  for (const { table, seq } of rows) {
    const quoted = `"${table.replace(/"/g, '""')}"`;
    await db.raw(`select setval(?, coalesce((select max(id) from ${quoted}), 1), (select count(*) > 0 from ${quoted}))`, [seq]);
  }
}
