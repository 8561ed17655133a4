import type { Knex } from 'knex';
import { loadConfig, type Config } from '../config.ts';
import { migrate, openStore, storeTarget } from '../db/connection.ts';

/** What every CLI command works with: the settings and the migrated store of the data folder. */
export interface CliContext {
  config: Config;
  db(): Promise<Knex>;
  /** Prints the result: as the single last JSON line with --json, else as readable text. */
  print(result: Record<string, unknown>, human?: string): void;
  close(): Promise<void>;
}

export function createCliContext(json: () => boolean): CliContext {
  const config = loadConfig();
  let store: Knex | undefined;
  return {
    config,
    async db() {
      if (!store) {
        store = openStore(storeTarget(config));
        await migrate(store);
      }
      return store;
    },
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
