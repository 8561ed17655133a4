import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { backupStore, restoreStore } from '../db/backup.ts';
import { openStore } from '../db/connection.ts';
import { dialectFor } from '../db/dialect.ts';
import { BackupError, StoreBusyError } from '../db/errors.ts';
import { exportStore } from '../db/exportStore.ts';
import { dataFolder } from '../dataFolder.ts';
import { CliError, type CliContext } from './context.ts';

/** Backup and restore failures are the operator's to fix: shown as messages, not stack traces. */
async function operatorErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof BackupError || err instanceof StoreBusyError) throw new CliError(err.message);
    throw err;
  }
}

/** `db backup FILE`, `db restore FILE`, `db export-to DATABASE_URL`. */
export function registerDbCommands(program: Command, cli: CliContext): void {
  const db = program.command('db').description('back up, restore and move the store');
  db.command('backup')
    .argument('<file>', 'the backup file to write (must not exist)')
    .description('write a consistent copy of the store; safe while the server runs')
    .action(async (file: string) => {
      const done = await operatorErrors(async () => backupStore(await cli.db(), file));
      cli.print(done, `Backed up the store to ${done.file} (${done.bytes} bytes)`);
    });
  db.command('restore')
    .argument('<file>', 'a backup written by `db backup` or the desktop app')
    .description('replace the store with a backup; the server must be stopped')
    .action(async (file: string) => {
      if (cli.config.databaseUrl) throw new CliError('The store is a PostgreSQL database: restore a pg_dump archive with pg_restore.');
      const done = await operatorErrors(() => restoreStore(cli.config.dataDir, file));
      const kept = done.previous ? `; the previous store was kept as ${done.previous}` : '';
      cli.print(done, `Restored ${file} into ${done.store}${kept}`);
    });
  db.command('export-to')
    .argument('<database-url>', 'an empty PostgreSQL database, postgres://user:password@host:5432/db')
    .description("copy the data folder's SQLite store into PostgreSQL (for FLEXSITE_DATABASE_URL); the server must be stopped")
    .action(async (url: string) => {
      if (cli.config.databaseUrl)
        throw new CliError('The store already is a PostgreSQL database (FLEXSITE_DATABASE_URL); unset it to export the data folder.');
      if (dialectFor(url).name !== 'postgresql') throw new CliError(`"${url}" is not a postgres:// URL`);
      const folder = dataFolder(cli.config.dataDir);
      // The copy must see a store nobody writes to: the same lock a server takes.
      const lock = await operatorErrors(() => dialectFor(folder.store).lockStore(folder));
      const target = openStore(url);
      const bar = new SingleBar({ format: 'rows |{bar}| {value}/{total} {table}', stream: process.stderr }, Presets.shades_classic);
      try {
        let started = false;
        const counts = await operatorErrors(async () =>
          exportStore(await cli.db(), target, ({ table, done, total }) => {
            if (!started) bar.start(total, 0, { table });
            started = true;
            bar.update(done, { table });
          }),
        );
        bar.stop();
        const rows = Object.values(counts).reduce((a, b) => a + b, 0);
        cli.print(
          { rows, tables: counts },
          `Copied ${rows} rows of ${Object.keys(counts).length} tables; set FLEXSITE_DATABASE_URL to use them.`,
        );
      } finally {
        bar.stop();
        await target.destroy();
        await lock.release();
      }
    });
}
