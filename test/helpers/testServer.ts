import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { startServer, type RunningServer } from '../../server/src/app.ts';
import type { SimulatedClock } from '../../server/src/clock.ts';
import { loadConfig } from '../../server/src/config.ts';
import { createLogger } from '../../server/src/logger.ts';
import { inject } from 'vitest';
import { freshDatabase, onSharedBackends } from './sharedBackends.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads answers of any shape and checks them with assertions, not types
export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** An answer as it came over the wire: repeated header lines stay separate (`Link`). */
export interface RawResponse {
  status: number;
  /** Alternating names and values, as Node received them. */
  rawHeaders: string[];
  text: string;
}

/** @returns the values of one header in arrival order, repeated lines kept separate. */
export function headerLines(res: RawResponse, name: string): string[] {
  const lines: string[] = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) {
    if (res.rawHeaders[i].toLowerCase() === name.toLowerCase()) lines.push(res.rawHeaders[i + 1]);
  }
  return lines;
}

export interface RequestOptions {
  token?: string;
  json?: unknown;
  /** Raw body text (sent as is, with a JSON content type unless headers say otherwise). */
  raw?: string;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  form?: FormData;
}

export interface TestServer {
  url: string;
  dataDir: string;
  /** The settings that locate its store, for a CLI or another process over the same store. */
  storeSettings: Record<string, string>;
  db: Knex;
  server: RunningServer;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads answers of any shape and checks them with assertions, not types
  request<T = any>(method: string, urlPath: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** A request through node:http, which (unlike fetch) may send a body with a GET. */
  rawRequest(method: string, urlPath: string, headers?: Record<string, string>, body?: string): Promise<RawResponse>;
  close(): Promise<void>;
}

/** PostgreSQL databases of the data folders handed in, so that a restart finds its store again. */
const databases = new Map<string, { url: string; drop(): Promise<void> }>();

/**
 * The settings that locate the store of a data folder: the folder, and in the `postgresql` test
 * project a database of its own on the run's PostgreSQL (the same one each time it is asked) and
 * the run's Redis for jobs.
 * @param dataDir the data folder.
 * @param options empty: a new database starts without tables instead of migrated.
 */
export async function storeSettings(dataDir: string, options: { empty?: boolean } = {}): Promise<Record<string, string>> {
  let database = databases.get(dataDir);
  if (onSharedBackends && !database) databases.set(dataDir, (database = await freshDatabase(options)));
  if (!database) return { FLEXSITE_DATA_DIR: dataDir };
  return {
    FLEXSITE_DATA_DIR: dataDir,
    FLEXSITE_DATABASE_URL: database.url,
    FLEXSITE_REDIS_URL: inject('redisUrl'),
  };
}

/**
 * Starts the real server on an ephemeral port over a fresh SQLite file in a temp folder, or, in
 * the `postgresql` test project, over a fresh database on the run's PostgreSQL.
 * @param env extra settings, as environment variables.
 * @param dataDir reuse this data folder (to test restarts) instead of a new one.
 * @param options a simulated clock to run the server on: its time is the server's, advancing it
 *   runs the server's periodic work due meanwhile and waits for the jobs that work queued.
 * @returns the running server and an HTTP helper.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  dataDir?: string,
  options: { clock?: SimulatedClock } = {},
): Promise<TestServer> {
  const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-test-'));
  const store = await storeSettings(dir);
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', FLEXSITE_LOG_LEVEL: 'silent', ...store, ...env });
  const server = await startServer(config, { log: createLogger('silent'), clock: options.clock });
  options.clock?.settleWith(() => server.services.jobs.drained());
  const url = server.url;
  return {
    url,
    dataDir: dir,
    storeSettings: store,
    db: server.services.db,
    server,
    async request<T>(method: string, urlPath: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
      const target = new URL(url + urlPath);
      for (const [k, v] of Object.entries(options.query ?? {})) if (v !== undefined) target.searchParams.set(k, String(v));
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.Authorization = options.token;
      let body: string | FormData | undefined;
      if (options.form) body = options.form;
      else if (options.raw !== undefined || options.json !== undefined) {
        headers['Content-Type'] ??= 'application/json';
        body = options.raw ?? JSON.stringify(options.json);
      }
      const res = await fetch(target, { method, headers, body, redirect: 'manual' });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        // keep the text
      }
      return { status: res.status, body: parsed as T, headers: res.headers };
    },
    rawRequest(method, urlPath, headers = {}, body) {
      return new Promise((resolve, reject) => {
        const length = body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(body)) };
        const req = http.request(url + urlPath, { method, headers: { ...length, ...headers } }, (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders, text }));
        });
        req.on('error', reject);
        req.end(body);
      });
    },
    async close() {
      await server.close();
      if (!dataDir) {
        fs.rmSync(dir, { recursive: true, force: true });
        await databases.get(dir)?.drop();
        databases.delete(dir);
      }
    },
  };
}
