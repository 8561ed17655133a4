import fs from 'node:fs';
import path from 'node:path';
import knex from 'knex';
import type sqlite3 from 'sqlite3';
import type { Dialect } from '../dialect.ts';
import { backupStore } from './backup.ts';
import { latestPerProbability } from './latestBeliefs.ts';
import { keepStatements, runKept } from './statements.ts';
import { lockStore } from './storeLock.ts';

/** knex's own bookkeeping, which is not part of the application's schema. */
const knexTables = ['knex_migrations', 'knex_migrations_lock'];

/** The embedded store: one SQLite file in the data folder, used by one server process. */
export const sqlite: Dialect = {
  name: 'sqlite',
  client: 'sqlite3',
  countsChanges: true,

  open(file) {
    if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
    // One connection: SQLite has a single writer anyway, and one connection makes every knex
    // transaction exclusive without lock-retry loops.
    return connect(file, 1, [
      // WAL lets readers (the reader pool, backups, the CLI) read while the server writes.
      'PRAGMA journal_mode = WAL',
      // NORMAL is durable against application crashes in WAL mode; only a power cut can lose
      // the last transactions, never corrupt the file. FULL would fsync every upload.
      'PRAGMA synchronous = NORMAL',
      // Cascading deletes of assets → sensors → beliefs rely on enforced foreign keys.
      'PRAGMA foreign_keys = ON',
    ]);
  },

  // In WAL mode readers see the last commit and never wait for the writer: a pool of them lets
  // downloads and lookups run while uploads commit. `:memory:` has no second connection to the same data.
  openReaders: (file, writer) => (file === ':memory:' ? writer : connect(file, READERS, ['PRAGMA query_only = ON'])),

  latestPerProbability,

  rows: <T>(result: unknown) => result as T[],

  query: runKept,

  lockStore: (folder) => lockStore(folder.lock),

  backup: backupStore,

  async tableNames(db) {
    return db('sqlite_master')
      .where({ type: 'table' })
      .whereNot('name', 'like', 'sqlite_%')
      .whereNotIn('name', knexTables)
      .orderBy('name')
      .pluck('name');
  },

  async columnNames(db, table) {
    const columns = (await db.raw(`PRAGMA table_info(${JSON.stringify(table)})`)) as { name: string }[];
    return columns.map((c) => c.name);
  },
};

/** Reading connections: SQLite's reads run on libuv's thread pool, four threads by default. */
const READERS = 4;

/** A knex pool of up to `max` connections to the file, each set up with the pragmas. */
function connect(file: string, max: number, pragmas: string[]) {
  return knex({
    client: 'sqlite3',
    connection: { filename: file },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max,
      afterCreate(conn: sqlite3.Database, done: (err: Error | null, conn: sqlite3.Database) => void) {
        keepStatements(conn);
        // The CLI may write while the server runs; wait for its lock instead of failing.
        conn.exec([...pragmas, 'PRAGMA busy_timeout = 10000'].join(';'), (err) => done(err, conn));
      },
    },
  });
}
