import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import sqlite3 from 'sqlite3';
import { dataFolder } from '../../dataFolder.ts';
import { BackupError } from '../errors.ts';
import { migrations } from '../migrations/index.ts';
import { lockStore } from './storeLock.ts';

/**
 * Writes a consistent copy of the store while it stays in use. `VACUUM INTO` reads inside one
 * transaction, so under WAL the copy is the store as of one moment even while the server writes.
 * The copy is written under a temporary name and renamed, so a file at `file` is always complete.
 * @param db the open store.
 * @param file where the copy goes.
 * @param options overwrite: replace an existing file (only once the new copy is complete).
 * @returns the absolute path and size of the copy.
 */
export async function backupStore(db: Knex, file: string, options: { overwrite?: boolean } = {}): Promise<{ file: string; bytes: number }> {
  const target = path.resolve(file);
  if (!options.overwrite && fs.existsSync(target)) throw new BackupError(`${target} already exists; choose a new file name.`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const partial = `${target}.partial`;
  fs.rmSync(partial, { force: true });
  try {
    await db.raw('VACUUM INTO ?', [partial]);
    fs.renameSync(partial, target);
  } finally {
    fs.rmSync(partial, { force: true });
  }
  return { file: target, bytes: fs.statSync(target).size };
}

/**
 * Checks that a file is a Flexsite store this version can open: an intact SQLite database whose
 * migration table lists only migrations this version knows.
 * @param file the candidate.
 * @returns the names of the migrations it has.
 * @throws BackupError saying what is wrong.
 */
export async function inspectBackup(file: string): Promise<{ migrations: string[] }> {
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new BackupError(`${source} does not exist.`);
  const header = Buffer.alloc(16);
  const fd = fs.openSync(source, 'r');
  fs.readSync(fd, header, 0, 16, 0);
  fs.closeSync(fd);
  if (header.toString('latin1') !== 'SQLite format 3\0') throw new BackupError(`${source} is not a SQLite database.`);

  const conn = await new Promise<sqlite3.Database>((resolve, reject) => {
    const db = new sqlite3.Database(source, sqlite3.OPEN_READONLY, (err) => (err ? reject(err) : resolve(db)));
  });
  const all = <T>(sql: string) =>
    new Promise<T[]>((resolve, reject) => conn.all(sql, (err, rows) => (err ? reject(err) : resolve(rows as T[]))));
  try {
    const [check] = await all<{ quick_check: string }>('PRAGMA quick_check');
    if (check?.quick_check !== 'ok') throw new BackupError(`${source} is damaged: ${check?.quick_check}`);
    const tables = await all<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'knex_migrations'");
    if (!tables.length) throw new BackupError(`${source} is not a Flexsite store (no migration table).`);
    const names = (await all<{ name: string }>('SELECT name FROM knex_migrations ORDER BY id')).map((r) => r.name);
    const known = new Set(migrations.map(([name]) => name));
    if (!names.includes(migrations[0][0])) throw new BackupError(`${source} is not a Flexsite store.`);
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length) {
      throw new BackupError(`${source} comes from a newer Flexsite (migrations ${unknown.join(', ')}); update Flexsite first.`);
    }
    return { migrations: names };
  } finally {
    await new Promise<void>((resolve) => conn.close(() => resolve()));
  }
}

/**
 * Replaces the store of a data folder with a backup. Refuses while a server uses the folder (its
 * lock is held for the whole restore, so none can start meanwhile). The replaced store is moved,
 * not deleted, to `backups/before-restore-<time>.sqlite`. A store at an older schema is brought
 * up to date by the next start.
 * @param dataDir the data folder.
 * @param file the backup.
 * @returns where the backup was restored and where the previous store was kept, if there was one.
 * @throws StoreBusyError while a server runs; BackupError for an unusable file.
 */
export async function restoreStore(dataDir: string, file: string): Promise<{ store: string; previous: string | null }> {
  const folder = dataFolder(dataDir);
  const lock = await lockStore(folder.lock);
  try {
    await inspectBackup(file);
    const incoming = `${folder.store}.restoring`;
    fs.copyFileSync(path.resolve(file), incoming);
    let previous: string | null = null;
    if (fs.existsSync(folder.store)) {
      fs.mkdirSync(folder.backups, { recursive: true });
      previous = path.join(folder.backups, `before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}.sqlite`);
      fs.renameSync(folder.store, previous);
      // A WAL left by a crashed server belongs with the store it was moved with.
      if (fs.existsSync(`${folder.store}-wal`)) fs.renameSync(`${folder.store}-wal`, `${previous}-wal`);
    }
    fs.rmSync(`${folder.store}-wal`, { force: true });
    fs.rmSync(`${folder.store}-shm`, { force: true });
    fs.renameSync(incoming, folder.store);
    return { store: folder.store, previous };
  } finally {
    await lock.release();
  }
}
