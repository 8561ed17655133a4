import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { startServer, type RunningServer } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import { createLogger } from '../../server/src/logger.ts';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
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
  db: Knex;
  server: RunningServer;
  request<T = any>(method: string, urlPath: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/**
 * Starts the real server on an ephemeral port over a fresh SQLite file in a temp folder.
 * @param env extra settings, as environment variables.
 * @param dataDir reuse this data folder (to test restarts) instead of a new one.
 * @returns the running server and an HTTP helper.
 */
export async function startTestServer(env: Record<string, string> = {}, dataDir?: string): Promise<TestServer> {
  const dir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-test-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', FLEXSITE_DATA_DIR: dir, FLEXSITE_LOG_LEVEL: 'silent', ...env });
  const server = await startServer(config, { log: createLogger('silent') });
  const url = server.url;
  return {
    url,
    dataDir: dir,
    db: server.services.db,
    server,
    async request(method, urlPath, options = {}) {
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
      return { status: res.status, body: parsed as any, headers: res.headers };
    },
    async close() {
      await server.close();
      if (!dataDir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
