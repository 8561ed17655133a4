import type { Knex } from 'knex';
import type sqlite3 from 'sqlite3';

/**
 * Statements kept compiled on each SQLite connection. Through knex, node-sqlite3 prepares every
 * statement anew: three trips to the thread pool (prepare, run, finalize) and a compile for each
 * query. A kept statement costs one trip. The few statements that run on every request (and the
 * few shapes of multi-row inserts) stay well within the bound.
 */
const PER_CONNECTION = 64;

interface Kept {
  statement: sqlite3.Statement;
  /** Settles once compiled: node-sqlite3 drops, without an answer, runs queued on a statement that failed to compile. */
  ready: Promise<void>;
}

const kept = new WeakMap<sqlite3.Database, Map<string, Kept>>();

/**
 * Runs one statement on a connection of `db` (a transaction's own connection, or one the pool
 * lends for the statement) with its compiled form kept for the next time.
 * @param db the store, a transaction, or a query builder of either (whose connection it takes).
 * @returns the rows it produced (none for writes).
 */
export async function runKept<T>(db: Knex | Knex.Transaction | Knex.QueryBuilder, sql: string, bindings: readonly unknown[]): Promise<T[]> {
  const client = db.client as { acquireConnection(): Promise<sqlite3.Database>; releaseConnection(c: sqlite3.Database): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    let statements = kept.get(conn);
    if (!statements) kept.set(conn, (statements = new Map()));
    let entry = statements.get(sql);
    if (entry) {
      // Most recently used last: the bound drops the least recently used.
      statements.delete(sql);
    } else {
      if (statements.size >= PER_CONNECTION) {
        const [oldest, { statement }] = statements.entries().next().value!;
        statements.delete(oldest);
        statement.finalize();
      }
      entry = compile(conn, sql, statements);
    }
    statements.set(sql, entry);
    await entry.ready;
    const { statement } = entry;
    // `all` steps each run to its end, so no statement keeps a read open between runs.
    return await new Promise<T[]>((resolve, reject) =>
      statement.all(bindings as unknown[], (err, rows) => (err ? reject(err) : resolve(rows as T[]))),
    );
  } finally {
    await client.releaseConnection(conn);
  }
}

function compile(conn: sqlite3.Database, sql: string, statements: Map<string, Kept>): Kept {
  let statement!: sqlite3.Statement;
  const ready = new Promise<void>((resolve, reject) => {
    statement = conn.prepare(sql, (err) => {
      if (!err) return resolve();
      // Not kept: the next run compiles again and reports its own error.
      if (statements.get(sql)?.statement === statement) statements.delete(sql);
      reject(err);
    });
  });
  return { statement, ready };
}

/**
 * Finalizes the kept statements of a connection before it closes: SQLite refuses to close a
 * connection with statements still open.
 */
export function finalizeKept(conn: sqlite3.Database): void {
  for (const { statement } of kept.get(conn)?.values() ?? []) statement.finalize();
  kept.delete(conn);
}
