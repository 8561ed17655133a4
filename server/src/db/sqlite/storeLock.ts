import fs from 'node:fs';
import path from 'node:path';
import sqlite3 from 'sqlite3';
import type { StoreLock } from '../dialect.ts';
import { StoreBusyError } from '../errors.ts';

/**
 * Takes the data folder's lock: an exclusive transaction on a small SQLite file. SQLite's own
 * file locks (fcntl on POSIX, LockFileEx on Windows) are dropped by the OS when a process dies,
 * so a crash or power cut never leaves a stale lock behind the way a pid file would.
 * @param lockFile the lock file (see dataFolder()).
 * @returns the held lock.
 * @throws StoreBusyError when someone else holds it.
 */
export async function lockStore(lockFile: string): Promise<StoreLock> {
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  const conn = await new Promise<sqlite3.Database>((resolve, reject) => {
    const db = new sqlite3.Database(lockFile, (err) => (err ? reject(err) : resolve(db)));
  });
  const exec = (sql: string) => new Promise<void>((resolve, reject) => conn.exec(sql, (err) => (err ? reject(err) : resolve())));
  const close = () => new Promise<void>((resolve) => conn.close(() => resolve()));
  try {
    // No journal file: the transaction never writes, it only holds the lock.
    await exec('PRAGMA busy_timeout = 0; PRAGMA journal_mode = MEMORY; BEGIN EXCLUSIVE');
  } catch (err) {
    await close();
    if ((err as { code?: string }).code === 'SQLITE_BUSY') throw new StoreBusyError(lockFile);
    throw err;
  }
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      await exec('ROLLBACK');
      await close();
    },
  };
}
