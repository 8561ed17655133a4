import type { TestProject } from 'vitest/node';
import { migrate, openStore } from '../../server/src/db/connection.ts';
import { startPostgres, startRedis } from './backends.ts';
import { adminQuery, TEMPLATE_DATABASE, withDatabase } from './sharedBackends.ts';

/**
 * Starts one throwaway PostgreSQL and one Redis for the `postgresql` test project, as CI does,
 * and migrates the template database each test copies.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await startPostgres();
  const redis = await startRedis();
  await adminQuery(postgres.url, `CREATE DATABASE ${TEMPLATE_DATABASE}`);
  const db = openStore(withDatabase(postgres.url, TEMPLATE_DATABASE));
  await migrate(db);
  await db.destroy();
  project.provide('postgresUrl', postgres.url);
  project.provide('redisUrl', redis.url);
  return async () => {
    await redis.stop();
    await postgres.stop();
  };
}
