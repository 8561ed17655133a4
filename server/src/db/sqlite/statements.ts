import type { Knex } from 'knex';
import sqlite3 from 'sqlite3';

/*
 * Statements kept compiled on each SQLite connection. node-sqlite3 prepares every statement it is
 * given as text anew: three trips to the thread pool (prepare, run, finalize) and a compile for
 * each query. A kept statement costs one trip. The statements the server runs over and over (a
 * few hundred shapes, multi-row inserts included) stay within the bound; the rest come and go.
 * A kept statement stays correct across schema changes (by a migration, or by another process
 * such as the CLI): SQLite compiles it again when the schema it was compiled for has changed.
 */

/** How much one connection keeps, least recently used out first. */
export interface Bound {
  statements: number;
  /**
   * Characters of SQL: a compiled statement takes some 30–50 bytes per character (a 10,000-row
   * insert of beliefs, 110,000 characters, takes 3.4 MB), so these bound the memory.
   */
  chars: number;
}

const PER_CONNECTION: Bound = { statements: 256, chars: 1_000_000 };

/**
 * What is kept: queries, writes and a transaction's BEGIN, COMMIT and ROLLBACK. Not PRAGMAs
 * (SQLite compiles one again at each run, as some act while compiling), nor DDL, VACUUM and
 * savepoints, which run once (knex names each savepoint anew): keeping them would save nothing.
 */
const KEEP = /^\s*(select|insert|update|delete|with|replace)\b|^(begin|commit|rollback);?$/i;

interface Kept {
  statement: sqlite3.Statement;
  /**
   * Answers the runs queued while the statement compiles, should compiling fail: node-sqlite3
   * then drops them without an answer. Unset once compiled.
   */
  failQueued?: ((err: Error) => void)[];
}

type Callback = (this: unknown, err: Error | null, rows?: unknown[]) => void;

/** node-sqlite3's Statement constructor (undeclared in its types): its callback hears of success too. */
const Statement = sqlite3.Statement as unknown as new (
  db: sqlite3.Database,
  sql: string,
  done: (err: Error | null) => void,
) => sqlite3.Statement;

/**
 * Makes a connection run the statements knex gives it as text (`all` for reads and for writes
 * that return rows, `run` for other writes) on kept statements, and finalize them before it
 * closes (SQLite refuses to close a connection with statements still open).
 */
export function keepStatements(conn: sqlite3.Database, bound = PER_CONNECTION): void {
  const kept = new KeptStatements(conn, bound);
  const original = { all: conn.all.bind(conn), run: conn.run.bind(conn), close: conn.close.bind(conn) };
  const on =
    (method: 'all' | 'run') =>
    (...args: unknown[]): sqlite3.Database => {
      const [sql, bindings, callback] = args as [string, unknown, Callback];
      if (args.length !== 3 || typeof callback !== 'function' || !KEEP.test(sql)) {
        return (original[method] as (...a: unknown[]) => sqlite3.Database)(...args);
      }
      const entry = kept.get(sql);
      entry.failQueued?.push((err) => callback.call(entry.statement, err));
      // Queued on the statement at once, ahead of the finalize of a later eviction.
      entry.statement[method]((bindings ?? []) as unknown[], function (this: sqlite3.RunResult, err: Error | null, rows?: unknown[]) {
        // knex reads `lastID` and `changes` of `this` after the callback; the statement's own
        // change with its next run.
        callback.call({ lastID: this.lastID, changes: this.changes }, err, rows);
      });
      return conn;
    };
  Object.assign(conn, {
    all: on('all'),
    run: on('run'),
    close(callback?: (err: Error | null) => void) {
      kept.finalizeAll();
      return original.close(callback);
    },
  });
}

/** The kept statements of one connection, least recently used first. */
class KeptStatements {
  private readonly statements = new Map<string, Kept>();
  private chars = 0;

  constructor(
    private readonly conn: sqlite3.Database,
    private readonly bound: Bound,
  ) {}

  /** The kept statement of `sql`, compiled now when it is not kept; the least recently used make room. */
  get(sql: string): Kept {
    let entry = this.statements.get(sql);
    if (entry) {
      this.statements.delete(sql);
      this.statements.set(sql, entry);
      return entry;
    }
    while (this.statements.size && (this.statements.size >= this.bound.statements || this.chars + sql.length > this.bound.chars)) {
      const [oldest, { statement }] = this.statements.entries().next().value!;
      this.drop(oldest);
      // Queued behind the runs still pending on it.
      statement.finalize();
    }
    entry = this.compile(sql);
    this.statements.set(sql, entry);
    this.chars += sql.length;
    return entry;
  }

  /** Finalizes every kept statement, each after the runs still pending on it. */
  finalizeAll(): void {
    for (const { statement } of this.statements.values()) statement.finalize();
    this.statements.clear();
    this.chars = 0;
  }

  private drop(sql: string): void {
    this.statements.delete(sql);
    this.chars -= sql.length;
  }

  private compile(sql: string): Kept {
    const entry: Kept = { statement: undefined as unknown as sqlite3.Statement, failQueued: [] };
    entry.statement = new Statement(this.conn, sql, (err) => {
      const failQueued = entry.failQueued!;
      entry.failQueued = undefined;
      if (!err) return;
      // Not kept: the next run compiles again and reports its own error.
      if (this.statements.get(sql) === entry) this.drop(sql);
      for (const fail of failQueued) fail(err);
    });
    return entry;
  }
}

/**
 * Runs one statement on a connection of `db` (a transaction's own connection, or one the pool
 * lends for the statement) without knex's query builder: the connection keeps it compiled.
 * @param db the store, a transaction, or a query builder of either (whose connection it takes).
 * @returns the rows it produced (none for writes).
 */
export async function runKept<T>(db: Knex | Knex.Transaction | Knex.QueryBuilder, sql: string, bindings: readonly unknown[]): Promise<T[]> {
  const client = db.client as { acquireConnection(): Promise<sqlite3.Database>; releaseConnection(c: sqlite3.Database): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    return await new Promise<T[]>((resolve, reject) => conn.all(sql, bindings, (err, rows) => (err ? reject(err) : resolve(rows as T[]))));
  } finally {
    await client.releaseConnection(conn);
  }
}
