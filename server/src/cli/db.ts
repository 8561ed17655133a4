import type { Command } from 'commander';
import { backupStore, restoreStore } from '../db/backup.ts';
import { BackupError, StoreBusyError } from '../db/errors.ts';
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

/** `db backup FILE`, `db restore FILE`. */
export function registerDbCommands(program: Command, cli: CliContext): void {
  const db = program.command('db').description('back up and restore the store');
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
}
