import type { Knex } from 'knex';
import type { CommandContext } from '../commands/context.ts';
import { loadConfig, type Config } from '../config.ts';
import { migrate, openStore, storeTarget } from '../db/connection.ts';
import { systemClock } from '../clock.ts';
import { findSchedulerPlugins } from '../workers/pluginFolder.ts';
import { hashPassword, type SchedulerPlugins } from '../../../worker/src/tasks.ts';
import type { AppError } from '../errors.ts';
import type { Principal } from '../policies/principal.ts';

/**
 * Whom the command line acts as: the operator, who holds the data folder (see `Principal`). The
 * commands it shares with the API still apply every rule that protects one account from another.
 */
export const OPERATOR: Principal = { kind: 'operator' };

/** What the commands the CLI shares with the API reach there: all but a queue (the CLI queues no jobs). */
export type CliCommandContext<DB extends Knex = Knex> = Omit<CommandContext<DB>, 'jobs'>;

/** What every CLI command works with: the settings and the migrated store of the data folder. */
export interface CliContext {
  config: Config;
  db(): Promise<Knex>;
  /** The shared commands' context over the store. */
  commands(): Promise<CliCommandContext>;
  /** Runs shared commands in one transaction of the store. */
  write<T>(work: (context: CliCommandContext<Knex.Transaction>) => Promise<T>): Promise<T>;
  /** Prints the result: as the single last JSON line with --json, else as readable text. */
  print(result: Record<string, unknown>, human?: string): void;
  close(): Promise<void>;
}

export function createCliContext(json: () => boolean): CliContext {
  const config = loadConfig();
  let store: Knex | undefined;
  const db = async () => {
    if (!store) {
      store = openStore(storeTarget(config));
      await migrate(store);
    }
    return store;
  };
  let plugins: SchedulerPlugins | undefined;
  const over = <DB extends Knex>(db: DB): CliCommandContext<DB> => ({
    db,
    reader: db,
    config,
    clock: systemClock,
    hash: hashPassword,
    // Looked for when a command needs them: a broken plugin folder only stops the commands that would use it.
    get schedulerPlugins() {
      return (plugins ??= findSchedulerPlugins(config.schedulerPluginsDir));
    },
  });
  return {
    config,
    db,
    commands: async () => over(await db()),
    write: async (work) => (await db()).transaction((trx) => work(over(trx))),
    print(result, human) {
      if (json()) process.stdout.write(JSON.stringify(result) + '\n');
      else process.stdout.write((human ?? JSON.stringify(result, null, 2)) + '\n');
    },
    async close() {
      await store?.destroy();
    },
  };
}

/** An error meant for the operator: printed without a stack trace. */
export class CliError extends Error {}

/**
 * A refusal of a command the CLI shares with the API, as a line for the operator: the message,
 * or each field with its messages (under their request location, which means nothing here).
 */
export function refusalText(err: AppError): string {
  return err.detail === undefined ? err.message : `${err.message}: ${err.detail}`;
}
