import fs from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { migrationSource } from './migrations/index.ts';

/**
 * Opens the store. This is the one SQLite-specific file: everything else uses the knex query
 * builder so that a PostgreSQL connection can replace this one.
 * @param file the SQLite database file (its folder is created if needed), or ':memory:'.
 * @returns a knex instance with the pragmas below applied to its connection.
 */
export function openStore(file: string): Knex {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
  return knex({
    client: 'sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    pool: {
      // One connection: SQLite has a single writer anyway, and one connection makes every
      // knex transaction exclusive without lock-retry loops.
      min: 1,
      max: 1,
      afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: SqliteConnection) => void) {
        conn.exec(
          [
            // WAL lets backups and other processes (the CLI) read while the server writes.
            'PRAGMA journal_mode = WAL',
            // NORMAL is durable against application crashes in WAL mode; only a power cut can lose
            // the last transactions, never corrupt the file. FULL would fsync every upload.
            'PRAGMA synchronous = NORMAL',
            // Cascading deletes of assets → sensors → beliefs rely on enforced foreign keys.
            'PRAGMA foreign_keys = ON',
            // The CLI may write while the server runs; wait for its lock instead of failing.
            'PRAGMA busy_timeout = 10000',
          ].join(';'),
          (err) => done(err, conn),
        );
      },
    },
  });
}

interface SqliteConnection {
  exec(sql: string, cb: (err: Error | null) => void): void;
}

/**
 * Brings the schema up to date.
 * @param db the store.
 * @returns the names of the migrations that ran.
 */
export async function migrate(db: Knex): Promise<string[]> {
  const [, names] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return names;
}
