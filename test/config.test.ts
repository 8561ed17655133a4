import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, settingNames } from '../server/src/config.ts';
import { dataFolder } from '../server/src/dataFolder.ts';
import { openStore } from '../server/src/db/connection.ts';
import { migrations } from '../server/src/db/migrations/index.ts';
import { runNpmScript, startNpm, stopProcess, waitForLine } from './helpers/processes.ts';
import { startTestServer } from './helpers/testServer.ts';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 5000,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      databaseUrl: null,
      redisUrl: null,
      role: 'all',
      logLevel: 'info',
      tokenMaxAgeS: 21_600,
      planningHorizonMs: 48 * 3_600_000,
      maxPlanningHorizon: { steps: 2520 },
      jobCacheTtlS: 3600,
      planningTtlMs: 7 * 86_400_000,
      jobTtlMs: 86_400_000,
      allowDataOverwrite: false,
      fallbackRedirect: false,
      apiCompat: '0.18',
      workerThreads: 1,
      hostsAndAuthStart: { 'flexmeasures.io': '2021-01' },
      legacyApi: 'sunset',
      sunsetDate: null,
      sunsetLink: null,
      schedulerPluginsDir: null,
      publicUrl: null,
    });
  });

  it('reads every form of value it documents', () => {
    expect(
      loadConfig({
        PORT: '0',
        HOST: '0.0.0.0',
        FLEXSITE_DATA_DIR: '/var/lib/flexsite',
        FLEXSITE_TOKEN_MAX_AGE: '60',
        FLEXSITE_PLANNING_HORIZON: 'P0DT6H0M0S',
        FLEXSITE_MAX_PLANNING_HORIZON: 'P30D',
        FLEXSITE_PLANNING_TTL: 'PT1.5H',
        FLEXSITE_ALLOW_DATA_OVERWRITE: 'TRUE',
        FLEXSITE_FALLBACK_REDIRECT: '1',
        FLEXSITE_API_COMPAT: '1.0',
        FLEXSITE_HOSTS_AND_AUTH_START: '{"example.com": "2024-05"}',
        FLEXSITE_SCHEDULER_PLUGINS: '/etc/flexsite/schedulers',
        FLEXSITE_PUBLIC_URL: 'https://flexsite.example.org/',
      }),
    ).toMatchObject({
      port: 0,
      host: '0.0.0.0',
      dataDir: '/var/lib/flexsite',
      tokenMaxAgeS: 60,
      planningHorizonMs: 6 * 3_600_000,
      maxPlanningHorizon: { ms: 30 * 86_400_000 },
      planningTtlMs: 5_400_000,
      allowDataOverwrite: true,
      fallbackRedirect: true,
      apiCompat: '1.0',
      hostsAndAuthStart: { 'example.com': '2024-05' },
      schedulerPluginsDir: '/etc/flexsite/schedulers',
      publicUrl: 'https://flexsite.example.org',
    });
    expect(loadConfig({ FLEXSITE_MAX_PLANNING_HORIZON: '96', FLEXSITE_ALLOW_DATA_OVERWRITE: 'false', HOST: '::1' })).toMatchObject({
      maxPlanningHorizon: { steps: 96 },
      allowDataOverwrite: false,
      host: '::1',
    });
    expect(loadConfig({ HOST: 'flexsite.local' }).host).toBe('flexsite.local');
  });

  it('reads the scale-out settings', () => {
    expect(
      loadConfig({
        FLEXSITE_DATABASE_URL: 'postgres://flexsite@db/flexsite',
        FLEXSITE_REDIS_URL: 'redis://queue:6379',
        FLEXSITE_ROLE: 'api',
      }),
    ).toMatchObject({ databaseUrl: 'postgres://flexsite@db/flexsite', redisUrl: 'redis://queue:6379', role: 'api' });
  });

  it('takes an empty value as unset', () => {
    expect(loadConfig({ PORT: '', FLEXSITE_TOKEN_MAX_AGE: '' })).toMatchObject({ port: 5000, tokenMaxAgeS: 21_600 });
  });

  it.each([
    ['PORT', 'http', 'PORT: expected a whole number'],
    ['PORT', '-1', 'PORT: expected a whole number'],
    ['PORT', '70000', 'PORT: must be at most 65535'],
    ['HOST', 'my host', 'HOST: expected an IP address or a host name, such as 127.0.0.1 or 0.0.0.0'],
    ['HOST', 'http://0.0.0.0', 'HOST: expected an IP address or a host name'],
    ['FLEXSITE_LOG_LEVEL', 'loud', 'FLEXSITE_LOG_LEVEL: Invalid option: expected one of'],
    ['FLEXSITE_TOKEN_MAX_AGE', '6h', 'FLEXSITE_TOKEN_MAX_AGE: expected a whole number'],
    ['FLEXSITE_TOKEN_MAX_AGE', '1.5', 'FLEXSITE_TOKEN_MAX_AGE: expected a whole number'],
    ['FLEXSITE_TOKEN_MAX_AGE', '0', 'FLEXSITE_TOKEN_MAX_AGE: must be at least 1'],
    ['FLEXSITE_PLANNING_HORIZON', '48h', 'FLEXSITE_PLANNING_HORIZON: expected a positive ISO 8601 duration such as PT48H, got "48h"'],
    ['FLEXSITE_PLANNING_HORIZON', 'P1M', 'FLEXSITE_PLANNING_HORIZON: expected a positive ISO 8601 duration such as PT48H, got "P1M"'],
    ['FLEXSITE_PLANNING_HORIZON', 'PT0H', 'FLEXSITE_PLANNING_HORIZON: expected a positive ISO 8601 duration'],
    ['FLEXSITE_PLANNING_TTL', '-P1D', 'FLEXSITE_PLANNING_TTL: expected a positive ISO 8601 duration'],
    ['FLEXSITE_JOB_TTL', '86400', 'FLEXSITE_JOB_TTL: expected a positive ISO 8601 duration'],
    [
      'FLEXSITE_MAX_PLANNING_HORIZON',
      '0',
      'FLEXSITE_MAX_PLANNING_HORIZON: expected a positive number of steps or ISO 8601 duration, got "0"',
    ],
    ['FLEXSITE_MAX_PLANNING_HORIZON', 'P1Y', 'FLEXSITE_MAX_PLANNING_HORIZON: expected a positive number of steps or ISO 8601 duration'],
    ['FLEXSITE_JOB_CACHE_TTL', '-5', 'FLEXSITE_JOB_CACHE_TTL: expected a whole number'],
    ['FLEXSITE_ALLOW_DATA_OVERWRITE', 'yes', 'FLEXSITE_ALLOW_DATA_OVERWRITE: expected 1, 0, true or false'],
    ['FLEXSITE_FALLBACK_REDIRECT', '2', 'FLEXSITE_FALLBACK_REDIRECT: expected 1, 0, true or false'],
    ['FLEXSITE_WORKER_THREADS', '0', 'FLEXSITE_WORKER_THREADS: must be at least 1'],
    [
      'FLEXSITE_HOSTS_AND_AUTH_START',
      '{"example.com": "2024-13"}',
      'FLEXSITE_HOSTS_AND_AUTH_START: expected a JSON object of host → "YYYY-MM"',
    ],
    ['FLEXSITE_HOSTS_AND_AUTH_START', 'example.com=2024-01', 'FLEXSITE_HOSTS_AND_AUTH_START: expected a JSON object'],
    ['FLEXSITE_LEGACY_API', 'off', 'FLEXSITE_LEGACY_API: Invalid option: expected one of "sunset"|"serve"'],
    ['FLEXSITE_DATABASE_URL', 'mysql://db/flexsite', 'FLEXSITE_DATABASE_URL: expected a postgres:// URL'],
    ['FLEXSITE_REDIS_URL', 'localhost:6379', 'FLEXSITE_REDIS_URL: expected a redis:// URL'],
    ['FLEXSITE_ROLE', 'worker', 'FLEXSITE_ROLE: worker needs FLEXSITE_DATABASE_URL and FLEXSITE_REDIS_URL'],
  ])('refuses %s=%s, saying why', (name, value, message) => {
    let error: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const { problems } = error as ConfigError;
    expect(problems).toHaveLength(1);
    expect(problems[0].startsWith(message), problems[0]).toBe(true);
    expect((error as ConfigError).message).toBe(`Invalid configuration:\n  ${problems[0]}`);
  });

  it('names every bad setting at once', () => {
    expect(() => loadConfig({ PORT: 'x', FLEXSITE_JOB_TTL: 'y', FLEXSITE_FALLBACK_REDIRECT: 'maybe' })).toThrow(
      /PORT: .*\n.*FLEXSITE_JOB_TTL: .*\n.*FLEXSITE_FALLBACK_REDIRECT: /,
    );
  });

  it('is documented: the README lists every setting', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');
    for (const name of settingNames) expect(readme, name).toContain(`\`${name}\``);
  });
});

describe('HOST', () => {
  it('0.0.0.0 listens on every interface and shows a URL that works from this machine', async () => {
    const t = await startTestServer({ HOST: '0.0.0.0' });
    try {
      expect(t.url).toMatch(/^http:\/\/localhost:\d+$/);
      const viaLoopback = await fetch(`http://127.0.0.1:${t.server.port}/api/ops/ping`);
      expect(viaLoopback.status).toBe(200);
    } finally {
      await t.close();
    }
  });
});

describe('npm start', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-start-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('stops with the message and a non-zero exit on a bad setting', async () => {
    const res = await runNpmScript('start', [], { FLEXSITE_DATA_DIR: dataDir, FLEXSITE_TOKEN_MAX_AGE: 'forever' });
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('Invalid configuration:\n  FLEXSITE_TOKEN_MAX_AGE: expected a whole number');
  });

  it('creates and migrates the store, then logs one line with its URL', async () => {
    const child = startNpm({ PORT: '0', HOST: '127.0.0.1', FLEXSITE_DATA_DIR: dataDir, FLEXSITE_LOG_LEVEL: 'info' });
    try {
      const line = await waitForLine(child, /listening on http:\/\/127\.0\.0\.1:\d+/);
      const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)![1];
      expect(JSON.parse(line)).toMatchObject({ msg: `Flexsite listening on ${url}`, url });
      const ping = await fetch(`${url}/api/ops/ping`);
      expect(await ping.json()).toEqual({ message: 'ok', status: 200 });
      const health = await fetch(`${url}/api/v3_0/health/ready`);
      expect(await health.json()).toEqual({ database_sql: true, status: 200 });
    } finally {
      await stopProcess(child);
    }
    const db = openStore(dataFolder(dataDir).store);
    try {
      expect(await db('knex_migrations').orderBy('id').pluck('name')).toEqual(migrations.map(([name]) => name));
      // No default credentials: the first user is made with the command line.
      expect(await db('user').pluck('id')).toEqual([]);
    } finally {
      await db.destroy();
    }
  });
});
