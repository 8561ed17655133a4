import type { Knex } from 'knex';
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
 * Brings the schema up to date.
 * @param db the store.
 * @returns the names of the migrations that ran.
 */
export async function migrate(db: Knex): Promise<string[]> {
  const [, names] = (await db.migrate.latest({ migrationSource })) as [number, string[]];
  return names;
}
