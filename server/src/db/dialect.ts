import type { Knex } from 'knex';
import type { DataFolder } from '../dataFolder.ts';
import type { BeliefColumns } from './beliefColumns.ts';
import { postgresql } from './postgresql/index.ts';
import { sqlite } from './sqlite/index.ts';

/** Exclusive use of a store by one server, released by `release()` or by the end of the process. */
export interface StoreLock {
  release(): Promise<void>;
}

/**
 * Everything that differs between the SQL engines the store runs on. The rest of the server uses
 * the knex query builder and portable SQL only; a new engine is one folder implementing this.
 */
export interface Dialect {
  /** As reported and logged, e.g. in readiness details. */
  readonly name: 'sqlite' | 'postgresql';
  /** The knex `client` this dialect drives. */
  readonly client: string;
  /**
   * Whether the store counts the writes a schedule reads in `store_change` (migration 0027): then
   * a reader that finds the count unchanged may keep what it read.
   */
  readonly countsChanges: boolean;
  /**
   * Opens a connection pool with the engine's settings applied.
   * @param target a file path (SQLite) or a connection URL.
   */
  open(target: string): Knex;
  /**
   * Opens connections for reads outside transactions, beside the pool of `open`, so that reads
   * do not queue behind a write transaction; or hands back `writer` when that pool reads
   * concurrently already.
   */
  openReaders(target: string, writer: Knex): Knex;
  /**
   * Completes a belief query (table, sensor, window and filters set) into the most recent
   * belief of each event, source and cumulative probability, read in one pass over the key range.
   * @returns the rows (event start, source, probability, belief time, value) as columns, in key order.
   */
  latestPerProbability(query: Knex.QueryBuilder): Promise<BeliefColumns>;
  /**
   * Runs one statement of the hot paths (every request, every upload), written in SQL both
   * engines read, with `?` placeholders, without knex's query builder (SQLite runs it, as every
   * statement, on a statement kept compiled on its connection).
   * @param db the store, its reader pool, or a transaction.
   * @returns the rows it produced (none for writes).
   */
  query<T>(db: Knex | Knex.Transaction, sql: string, bindings: readonly unknown[]): Promise<T[]>;
  /** The rows of a `db.raw()` SELECT (SQLite returns them as an array, PostgreSQL in `.rows`). */
  rows<T>(result: unknown): T[];
  /**
   * Claims the data folder for one server. An embedded store belongs to one process; a database
   * server is shared by many API processes and needs no folder lock.
   */
  lockStore(folder: DataFolder): Promise<StoreLock>;
  /**
   * Writes a consistent copy of the store to a file while it stays in use.
   * @throws BackupError when the engine's own tools are the way to back it up.
   */
  backup(db: Knex, file: string, options: { overwrite?: boolean }): Promise<{ file: string; bytes: number }>;
  /** The application's tables (knex's bookkeeping excluded), sorted. */
  tableNames(db: Knex): Promise<string[]>;
  /** The column names of one table. */
  columnNames(db: Knex, table: string): Promise<string[]>;
}

const dialects: Dialect[] = [sqlite, postgresql];

/**
 * The dialect a store target needs: a `postgres://` or `postgresql://` URL, else a SQLite file.
 * @param target what `openStore` is given.
 */
export function dialectFor(target: string): Dialect {
  return /^postgres(ql)?:\/\//i.test(target) ? postgresql : sqlite;
}

/**
 * The dialect of an open store (or transaction).
 * @param db the knex instance.
 */
export function dialectOf(db: Knex | Knex.Transaction): Dialect {
  const client = (db.client as { config: Knex.Config }).config.client;
  const found = dialects.find((d) => d.client === client);
  if (!found) throw new Error(`No store dialect for knex client ${String(client)}`);
  return found;
}
