import type { Knex } from 'knex';
import type { Config } from '../config.ts';
import { dataFolder } from '../dataFolder.ts';
import { dialectFor } from './dialect.ts';
import { migrationSource } from './migrations/index.ts';

/**
 * Opens the store through its dialect (see dialect.ts).
 * @param target a SQLite file (its folder is created if needed), ':memory:', or a `postgres://` URL.
 * @returns a knex instance with the engine's settings applied to its connections.
 */
export function openStore(target: string): Knex {
  return dialectFor(target).open(target);
}

/**
 * Opens the store's reading connections (see `Dialect.openReaders`).
 * @param writer the store as `openStore` opened it.
 * @returns a knex instance for reads outside transactions; `writer` itself on some engines.
 */
export function openReaders(target: string, writer: Knex): Knex {
  return dialectFor(target).openReaders(target, writer);
}

/**
 * Where the configured store is: the PostgreSQL database of `FLEXSITE_DATABASE_URL`, else the
 * data folder's SQLite file.
 * @param config the settings.
 */
export function storeTarget(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  return config.databaseUrl ?? dataFolder(config.dataDir).store;
}

/**
 * Brings the schema up to date.
 * @param db the store.
 * @returns the names of the migrations that ran.
 */
export async function migrate(db: Knex): Promise<string[]> {
  const [, names] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return names;
}
