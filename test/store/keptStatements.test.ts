import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import sqlite3 from 'sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataFolder } from '../../server/src/dataFolder.ts';
import { migrate, openReaders, openStore } from '../../server/src/db/connection.ts';
import { dialectOf } from '../../server/src/db/dialect.ts';
import { keepStatements } from '../../server/src/db/sqlite/statements.ts';

/**
 * The SQLite store runs every query and write on statements kept compiled on its connections
 * (db/sqlite/statements.ts). These tests hold it to what knex and the store rely on, on a real
 * store file: rows, inserted ids and change counts, errors, transactions, schema changes, closing,
 * backups, and statements evicted while runs on them are still queued.
 */
let dir: string;
let file: string;
let db: Knex;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-kept-'));
  file = dataFolder(dir).store;
  db = openStore(file);
  await migrate(db);
  await db.schema.createTable('kept_item', (t) => {
    t.increments('id');
    t.string('name').notNullable().unique();
    t.integer('grp');
  });
});
afterAll(async () => {
  await db?.destroy();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Opens a connection of its own to the store file (or another), as the CLI does. */
async function otherConnection(target = file): Promise<sqlite3.Database> {
  return new Promise((resolve, reject) => {
    const conn = new sqlite3.Database(target, (err) => (err ? reject(err) : resolve(conn)));
  });
}

const exec = (conn: sqlite3.Database, sql: string) =>
  new Promise<void>((resolve, reject) => conn.exec(sql, (err) => (err ? reject(err) : resolve())));
const close = (conn: sqlite3.Database) => new Promise<Error | null>((resolve) => conn.close((err) => resolve(err)));

describe('what knex reads from a kept statement', () => {
  it('returns the inserted id of each insert, the last one of a batch, and rows of insert…returning', async () => {
    const [a] = await db('kept_item').insert({ name: 'a', grp: 1 });
    const [b] = await db('kept_item').insert({ name: 'b', grp: 1 });
    expect(b).toBe(a + 1);
    const [c] = await db('kept_item').insert([
      { name: 'c', grp: 2 },
      { name: 'd', grp: 2 },
    ]);
    expect(c).toBe(b + 2);
    expect(await db('kept_item').insert({ name: 'e', grp: 3 }).returning(['id', 'name'])).toEqual([{ id: c + 1, name: 'e' }]);
    expect(await db('kept_item').insert({ name: 'f', grp: 3 }).returning('id')).toEqual([{ id: c + 2 }]);
  });

  it('gives each of many concurrent runs of one statement its own inserted id and change count', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `many-${i}`);
    const ids = await db.transaction((trx) =>
      Promise.all(
        names.map((name) =>
          trx('kept_item')
            .insert({ name, grp: 10 })
            .then(([id]) => id),
        ),
      ),
    );
    const stored = await db('kept_item').whereIn('name', names).select('id', 'name');
    expect(ids).toEqual(names.map((name) => stored.find((r) => r.name === name)!.id));
    // Groups of 1, 2 and 3 rows: each update reports its own count although they share a statement.
    await db('kept_item').insert(['g1', 'g2a', 'g2b', 'g3a', 'g3b', 'g3c'].map((name) => ({ name, grp: 100 + Number(name[1]) })));
    const changes = await db.transaction((trx) =>
      Promise.all([101, 102, 103].map((grp) => trx('kept_item').where({ grp }).update({ grp }))),
    );
    expect(changes).toEqual([1, 2, 3]);
    expect(await db('kept_item').where({ grp: 102 }).del()).toBe(2);
    expect(await db('kept_item').where({ grp: 102 }).del()).toBe(0);
  });

  it('answers upserts, first(), pluck and raw statements', async () => {
    await db('kept_item').insert({ name: 'u', grp: 1 }).onConflict('name').merge({ grp: 2 });
    await db('kept_item').insert({ name: 'u', grp: 1 }).onConflict('name').merge({ grp: 2 });
    await db('kept_item').insert({ name: 'u', grp: 7 }).onConflict('name').ignore();
    expect(await db('kept_item').where({ name: 'u' }).first('grp')).toEqual({ grp: 2 });
    expect(await db('kept_item').where({ name: 'nobody' }).first('grp')).toBeUndefined();
    expect(await db('kept_item').whereIn('name', ['a', 'b']).orderBy('name').pluck('name')).toEqual(['a', 'b']);
    expect(await db.raw('SELECT ? + 1 AS n', [41])).toEqual([{ n: 42 }]);
    expect(await db.raw('SELECT ? + 1 AS n', [1])).toEqual([{ n: 2 }]);
  });

  it('runs PRAGMAs each time anew', async () => {
    // SQLite applies and reads some settings while compiling a PRAGMA.
    try {
      for (const ms of [5000, 7000, 5000]) {
        await db.raw(`PRAGMA busy_timeout = ${ms}`);
        expect(await db.raw('PRAGMA busy_timeout')).toEqual([{ timeout: ms }]);
      }
      for (let i = 0; i < 2; i++) {
        await db.raw('PRAGMA foreign_keys = OFF');
        expect(await db.raw('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 0 }]);
        await db.raw('PRAGMA foreign_keys = ON');
        expect(await db.raw('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1 }]);
      }
    } finally {
      await db.raw('PRAGMA busy_timeout = 10000');
    }
  });
});

describe('errors', () => {
  it('reports a statement that does not compile, every time and to each of concurrent runs, and keeps it once it compiles', async () => {
    const sql = 'SELECT label FROM kept_later';
    await expect(db.raw(sql)).rejects.toThrow(/no such table: kept_later/);
    const runs = await Promise.allSettled([db.raw(sql), db.raw(sql), db.raw(sql)]);
    expect(runs.map((r) => r.status === 'rejected' && /no such table/.test(String(r.reason)))).toEqual([true, true, true]);
    await db.schema.createTable('kept_later', (t) => t.string('label'));
    await db('kept_later').insert({ label: 'now' });
    expect(await db.raw(sql)).toEqual([{ label: 'now' }]);
  });

  it('leaves the connection and the statement usable after a constraint violation', async () => {
    await expect(db('kept_item').insert({ name: 'a', grp: 1 })).rejects.toThrow(/UNIQUE constraint failed/);
    const [id] = await db('kept_item').insert({ name: 'after-violation', grp: 1 });
    expect(await db('kept_item').where({ id }).first('name')).toEqual({ name: 'after-violation' });
    // In a transaction: the violation rolls back the whole transaction, the next one commits.
    await expect(
      db.transaction(async (trx) => {
        await trx('kept_item').insert({ name: 'rolled-back', grp: 1 });
        await trx('kept_item').insert({ name: 'a', grp: 1 });
      }),
    ).rejects.toThrow(/UNIQUE constraint failed/);
    await db.transaction((trx) => trx('kept_item').insert({ name: 'committed', grp: 1 }));
    expect(await db('kept_item').whereIn('name', ['rolled-back', 'committed']).pluck('name')).toEqual(['committed']);
  });
});

describe('transactions', () => {
  it('commits, rolls back, and rolls back a nested transaction alone, time after time', async () => {
    for (let i = 0; i < 3; i++) {
      await db.transaction(async (trx) => {
        await trx('kept_item').insert({ name: `outer-${i}`, grp: 20 });
        await trx
          .transaction(async (inner) => {
            await inner('kept_item').insert({ name: `inner-${i}`, grp: 20 });
            throw new Error('inner fails');
          })
          .catch(() => undefined);
        await trx.transaction((inner) => inner('kept_item').insert({ name: `kept-inner-${i}`, grp: 20 }));
      });
      await expect(
        db.transaction(async (trx) => {
          await trx('kept_item').insert({ name: `gone-${i}`, grp: 20 });
          throw new Error('outer fails');
        }),
      ).rejects.toThrow('outer fails');
    }
    expect(await db('kept_item').where({ grp: 20 }).orderBy('id').pluck('name')).toEqual(
      [0, 1, 2].flatMap((i) => [`outer-${i}`, `kept-inner-${i}`]),
    );
  });
});

describe('schema changes', () => {
  it('answers with the columns of the schema of the moment, changed here or by another connection to the file', async () => {
    await db.schema.createTable('kept_shape', (t) => t.integer('a'));
    await db('kept_shape').insert({ a: 1 });
    const all = () => db('kept_shape').select('*');
    expect(await all()).toEqual([{ a: 1 }]);
    await db.schema.alterTable('kept_shape', (t) => t.integer('b').defaultTo(2));
    expect(await all()).toEqual([{ a: 1, b: 2 }]);
    const other = await otherConnection();
    try {
      await exec(other, 'ALTER TABLE kept_shape ADD COLUMN c INTEGER DEFAULT 3');
      expect(await all()).toEqual([{ a: 1, b: 2, c: 3 }]);
      await exec(other, "DROP TABLE kept_shape; CREATE TABLE kept_shape (z TEXT); INSERT INTO kept_shape VALUES ('new')");
      expect(await all()).toEqual([{ z: 'new' }]);
    } finally {
      expect(await close(other)).toBeNull();
    }
    // knex rebuilds the table to drop a column (create, copy, drop, rename) inside its transaction.
    await db.schema.alterTable('kept_shape', (t) => t.string('y').defaultTo('y'));
    await db.schema.alterTable('kept_shape', (t) => t.dropColumn('z'));
    expect(await all()).toEqual([{ y: 'y' }]);
  });
});

describe('reading connections', () => {
  it('see each commit, and hold no read open that would keep a checkpoint from emptying the log', async () => {
    const readers = openReaders(file, db);
    try {
      const count = async () => Number((await readers('kept_item').count({ n: '*' }))[0].n);
      const before = await count();
      await db('kept_item').insert({ name: 'seen-by-readers', grp: 30 });
      expect(await count()).toBe(before + 1);
      await Promise.all([count(), count(), count(), count()]);
      expect(await db.raw('PRAGMA wal_checkpoint(TRUNCATE)')).toEqual([{ busy: 0, log: 0, checkpointed: 0 }]);
    } finally {
      await readers.destroy();
    }
  });
});

describe('backups', () => {
  it('copies the store with VACUUM INTO while statements are kept, time after time', async () => {
    for (const name of ['first.sqlite', 'second.sqlite']) {
      const { file: copy } = await dialectOf(db).backup(db, path.join(dir, 'backups', name), {});
      const conn = await otherConnection(copy);
      const names = await new Promise<unknown[]>((resolve, reject) =>
        conn.all("SELECT name FROM kept_item WHERE name = 'a'", (err, rows) => (err ? reject(err) : resolve(rows))),
      );
      expect(names).toEqual([{ name: 'a' }]);
      expect(await close(conn)).toBeNull();
    }
  });
});

describe('the bound', () => {
  // By count, and by characters of SQL (an insert of 38 characters is more than the 30 kept).
  it.each([
    { statements: 2, chars: 1_000_000 },
    { statements: 100, chars: 30 },
  ])('keeps every run that is queued on a statement evicted meanwhile, and closes cleanly (bound %o)', async (bound) => {
    const conn = await otherConnection();
    keepStatements(conn, bound);
    const all = (sql: string, bindings: unknown[]) =>
      new Promise<unknown[]>((resolve, reject) => conn.all(sql, bindings, (err, rows) => (err ? reject(err) : resolve(rows))));
    const run = (sql: string, bindings: unknown[]) =>
      new Promise<{ lastID: number; changes: number }>((resolve, reject) =>
        conn.run(sql, bindings, function (err) {
          if (err) reject(err);
          else resolve({ lastID: this.lastID, changes: this.changes });
        }),
      );
    await exec(conn, 'CREATE TABLE IF NOT EXISTS kept_bound (id INTEGER PRIMARY KEY, v INTEGER)');
    // Five statements through a bound of two or fewer, none awaited before the next is issued: each
    // statement is evicted (finalized) while runs on it are still queued, over and over.
    const shapes = [0, 1, 2, 3, 4].map((k) => `SELECT ? + ${k} AS n`);
    const reads = Array.from({ length: 50 }, (_, i) => all(shapes[i % 5], [i]));
    const writes = Array.from({ length: 10 }, (_, i) => run('INSERT INTO kept_bound (v) VALUES (?)', [i]));
    const broken = Array.from({ length: 3 }, () => all('SELECT label FROM nowhere', []));
    const closed = Promise.allSettled([...reads, ...writes, ...broken]).then(() => close(conn));
    expect(await Promise.all(reads)).toEqual(Array.from({ length: 50 }, (_, i) => [{ n: i + (i % 5) }]));
    const written = await Promise.all(writes);
    expect(written.map((w) => w.changes)).toEqual(Array(10).fill(1));
    expect(new Set(written.map((w) => w.lastID)).size).toBe(10);
    for (const b of broken) await expect(b).rejects.toThrow(/no such table: nowhere/);
    expect(await closed).toBeNull();
  });

  it('closes with runs still pending: each kept statement is finalized after its runs', async () => {
    const conn = await otherConnection();
    keepStatements(conn, { statements: 2, chars: 1_000_000 });
    const reads = [0, 1, 2, 0, 1].map(
      (k) =>
        new Promise<unknown[]>((resolve, reject) => conn.all(`SELECT ${k} AS n`, [], (err, rows) => (err ? reject(err) : resolve(rows)))),
    );
    const closed = close(conn);
    expect(await Promise.all(reads)).toEqual([0, 1, 2, 0, 1].map((n) => [{ n }]));
    expect(await closed).toBeNull();
  });

  it('runs more statements than the store keeps, concurrently in one transaction', async () => {
    // 300 shapes through the store's own bound (256): the oldest are evicted while in use.
    const shapes = Array.from({ length: 300 }, (_, k) => `SELECT ? * 2 + ${k} AS n`);
    const results = await db.transaction((trx) => Promise.all([...shapes, ...shapes].map((sql, i) => trx.raw(sql, [i]))));
    expect(results).toEqual([...shapes, ...shapes].map((_, i) => [{ n: i * 2 + (i % 300) }]));
  });
});

describe('closing the store', () => {
  it('finalizes the kept statements so that SQLite closes the file and removes its log', async () => {
    const other = openStore(file);
    const readers = openReaders(file, other);
    await other('kept_item').insert({ name: 'before-close', grp: 40 });
    expect(await readers('kept_item').where({ name: 'before-close' }).first('grp')).toEqual({ grp: 40 });
    await readers.destroy();
    await other.destroy();
    await db.destroy();
    // The last connection to close checkpoints the log and removes it; one that fails to close
    // (statements left open) leaves it behind.
    expect(fs.existsSync(`${file}-wal`)).toBe(false);
    db = openStore(file);
    expect(await db('kept_item').where({ name: 'before-close' }).first('grp')).toEqual({ grp: 40 });
  });
});
