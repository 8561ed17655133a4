import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from './config.ts';

/** The Redis that API processes share, and the installation's namespace in it. */
export interface SharedRedis {
  client: Redis;
  namespace: string;
}

/** One namespace per store: installations may share a Redis, never each other's jobs or counts. */
export function redisNamespace(config: Pick<Config, 'databaseUrl' | 'dataDir'>): string {
  if (!config.databaseUrl) return `flexsite:${config.dataDir}`;
  const url = new URL(config.databaseUrl);
  return `flexsite:${url.host}${url.pathname}`;
}

/**
 * A Redis client for what API processes share besides jobs (login attempt counts). The client
 * package is loaded here, only when FLEXSITE_REDIS_URL is set: the appliance never needs it and
 * the desktop bundle leaves it out (main/bundle.ts).
 */
export async function openRedis(url: string, log: Logger): Promise<Redis> {
  const { Redis } = await import('ioredis');
  // Without a connection commands fail at once rather than queue: the caller has a fallback.
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
  // The client reconnects by itself; what went wrong belongs in the log, not on stderr.
  client.on('error', (err: unknown) => log.warn({ err }, 'redis connection failure'));
  // Counted from the first request on: as the job queue, a process starts once Redis answers.
  await new Promise((resolve) => client.once('ready', resolve));
  return client;
}
