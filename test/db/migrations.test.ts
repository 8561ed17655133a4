import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/src/config.ts';
import { openStore, storeTarget } from '../../server/src/db/connection.ts';
import { dialectOf } from '../../server/src/db/dialect.ts';
import { migrations, migrationSource } from '../../server/src/db/migrations/index.ts';
import { schema, snapshot, tableNames } from '../helpers/db.ts';
import { factories, PASSWORD } from '../helpers/factories.ts';
import { startTestServer, storeSettings } from '../helpers/testServer.ts';

const folders: string[] = [];
const stores: Knex[] = [];
afterEach(async () => {
  for (const db of stores.splice(0)) await db.destroy();
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-migrations-'));
  folders.push(dir);
  return dir;
}

/** A data folder's store before its first migration: a fresh SQLite file, or an empty PostgreSQL database. */
async function emptyStore(dataDir = tempDir()): Promise<Knex> {
  const db = openStore(storeTarget(loadConfig(await storeSettings(dataDir, { empty: true }))));
  stores.push(db);
  return db;
}

const names = migrations.map(([name]) => name);

/** Migrations that concern one engine only, by design: the other engine's schema stays as it was. */
const ONE_ENGINE: Record<string, 'sqlite' | 'postgresql'> = { '0027_store_changes': 'sqlite' };

/**
 * The schema plus the asset types the migrations seed: a migration may add reference data only
 * (0024 adds the "site" type), and going down must take that away again.
 */
async function state(db: Knex): Promise<unknown> {
  const seeded = (await tableNames(db)).includes('generic_asset_type');
  return { schema: await schema(db), assetTypes: seeded ? await db('generic_asset_type').orderBy('name').pluck('name') : [] };
}

describe('migrations', () => {
  it('are listed once each, in the order of their names', () => {
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual(names);
  });

  // Every listed migration, including ones added later, goes up and down on a fresh store (SQLite,
  // and PostgreSQL in the `postgresql` project).
  it.each(names.map((name, index) => [name, index] as const))('%s goes up and down again', async (name, index) => {
    const db = await emptyStore();
    for (let i = 0; i < index; i++) await db.migrate.up({ migrationSource });
    const before = await state(db);

    await db.migrate.up({ migrationSource, name });
    const after = await state(db);
    if (ONE_ENGINE[name] && ONE_ENGINE[name] !== dialectOf(db).name) expect(after).toEqual(before);
    else expect(after).not.toEqual(before);
    expect(await db('knex_migrations').orderBy('id').pluck('name')).toEqual(names.slice(0, index + 1));

    await db.migrate.down({ migrationSource, name });
    expect(await state(db)).toEqual(before);
    expect(await db('knex_migrations').pluck('name')).toEqual(names.slice(0, index));

    await db.migrate.up({ migrationSource, name });
    expect(await state(db)).toEqual(after);
  });

  it('all go down, in reverse, over a store full of data', async () => {
    const t = await startTestServer();
    try {
      const f = factories(t.db);
      const accountId = (await f.account({ roles: ['Prosumer'] })).id;
      const { token } = await f.user({ accountId, roles: ['account-admin'] });
      const asset = await f.asset({ accountId });
      const sensor = await f.sensor({ assetId: asset.id });
      const upload = await t.request('POST', `/api/v3_0/sensors/${sensor.id}/data`, {
        token,
        json: { start: '2024-01-01T00:00:00+00:00', duration: 'PT30M', values: [1, 2], unit: 'MW' },
      });
      expect(upload.status).toBe(200);
      const filled = Object.entries(await snapshot(t.db)).filter(([, rows]) => rows.length > 0);
      expect(filled.length).toBeGreaterThan(5);

      for (let i = names.length - 1; i >= 0; i--) await t.db.migrate.down({ migrationSource, name: names[i] });
      expect(await tableNames(t.db)).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('restarts', () => {
  it('keep the store: data, tokens and seeded types survive, nothing is migrated twice', async () => {
    const dataDir = tempDir();
    const first = await startTestServer({}, dataDir);
    const f = factories(first.db);
    const accountId = (await f.account()).id;
    const { user, token } = await f.user({ accountId, roles: ['account-admin'] });
    const created = await first.request('POST', '/api/v3_0/assets', {
      token,
      json: { name: 'kept', generic_asset_type_id: 5, account_id: accountId, attributes: '{"a": 1}' },
    });
    expect(created.status).toBe(201);
    const sensor = await first.request('POST', '/api/v3_0/sensors', {
      token,
      json: { name: 'kept power', unit: 'kW', event_resolution: 'PT5M', generic_asset_id: created.body.id },
    });
    expect(sensor.status).toBe(201);
    const before = await snapshot(first.db);
    await first.close();

    const second = await startTestServer({}, dataDir);
    try {
      expect(await snapshot(second.db)).toEqual(before);
      const asset = await second.request('GET', `/api/v3_0/assets/${created.body.id}`, { token });
      expect(asset.body).toEqual({ ...created.body, status: 200 });
      const again = await second.request('GET', `/api/v3_0/sensors/${sensor.body.id}`, { token });
      expect(again.body).toEqual({ ...sensor.body, status: 200 });
      const login = await second.request('POST', '/api/requestAuthToken', { json: { email: user.email, password: PASSWORD } });
      expect(login.status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('bring an older store up to date, keeping its data', async () => {
    const dataDir = tempDir();
    const old = await emptyStore(dataDir);
    await old.migrate.up({ migrationSource, name: names[0] });
    await old('account').insert({ name: 'from before' });
    await old.destroy();

    const t = await startTestServer({}, dataDir);
    try {
      expect(await t.db('knex_migrations').orderBy('id').pluck('name')).toEqual(names);
      expect(await t.db('account').pluck('name')).toEqual(['from before']);
    } finally {
      await t.close();
    }
  });
});
