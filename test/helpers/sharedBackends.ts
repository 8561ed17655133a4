import pg from 'pg';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Superuser URL of the run's throwaway PostgreSQL (see backendsSetup.ts), '' when not started. */
    postgresUrl: string;
    /** URL of the run's throwaway Redis, '' when not started. */
    redisUrl: string;
  }
}

/** The database every test database is copied from: already migrated, so copies start fast. */
export const TEMPLATE_DATABASE = 'flexsite_template';

/** Whether this test project runs the server on PostgreSQL with its jobs on BullMQ in Redis (the `postgresql` project). */
export const onSharedBackends = process.env.FLEXSITE_TEST_BACKEND === 'postgresql';

/**
 * Runs SQL as the run's PostgreSQL superuser, on the maintenance database.
 * @param adminUrl the superuser URL.
 */
export async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** @returns the URL of the same server with another database. */
export const withDatabase = (url: string, name: string) => Object.assign(new URL(url), { pathname: `/${name}` }).href;

let counter = 0;

/**
 * A new database on the run's PostgreSQL, copied from the migrated template.
 * @param options empty: without any table, as a store before its first migration.
 * @returns its URL, and a function that drops it.
 */
export async function freshDatabase(options: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = inject('postgresUrl');
  const name = `flexsite_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${options.empty ? 'template0' : TEMPLATE_DATABASE}`);
  return { url: withDatabase(adminUrl, name), drop: () => adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
