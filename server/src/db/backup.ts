import type { Knex } from 'knex';
import { dialectOf } from './dialect.ts';

export { inspectBackup, restoreStore } from './sqlite/backup.ts';

/**
 * Writes a consistent copy of the store while it stays in use (see the dialect's `backup`).
 * @param db the open store.
 * @param file where the copy goes.
 * @param options overwrite: replace an existing file (only once the new copy is complete).
 * @returns the absolute path and size of the copy.
 * @throws BackupError saying why not, e.g. that PostgreSQL is backed up with pg_dump.
 */
export async function backupStore(db: Knex, file: string, options: { overwrite?: boolean } = {}): Promise<{ file: string; bytes: number }> {
  return dialectOf(db).backup(db, file, options);
}
