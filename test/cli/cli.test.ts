import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PASSWORD } from '../helpers/factories.ts';
import { runCli, type CommandResult } from '../helpers/processes.ts';
import { startTestServer } from '../helpers/testServer.ts';

/** The command line, run as operators and tools run it, against one data folder for the whole file. */
let dataDir: string;

// Each command is a fresh Node process; a test runs several of them in a row.
vi.setConfig({ testTimeout: 180_000 });

beforeAll(() => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-cli-'));
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const cli = (...args: string[]) => runCli(args, { FLEXSITE_DATA_DIR: dataDir });

/** Success with --json: exit 0, nothing on stderr, exactly one line on stdout holding one JSON object. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads answers of any shape and checks them with assertions, not types
function json(res: CommandResult): any {
  expect(res.code, res.stderr).toBe(0);
  expect(res.stderr).toBe('');
  const lines = res.stdout.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  const value = JSON.parse(lines[0]);
  expect(value).toEqual(expect.any(Object));
  expect(Array.isArray(value)).toBe(false);
  return value;
}

/** Failure: a non-zero exit, the reason on stderr, nothing on stdout. */
function failure(res: CommandResult, reason: RegExp): void {
  expect(res.code).not.toBe(0);
  expect(res.stdout).toBe('');
  expect(res.stderr).toMatch(reason);
}

/** Reads the data folder through a server on it, as the running appliance would. */
async function withServer<T>(check: (t: Awaited<ReturnType<typeof startTestServer>>) => Promise<T>): Promise<T> {
  const t = await startTestServer({}, dataDir);
  try {
    return await check(t);
  } finally {
    await t.close();
  }
}

const ids: Record<string, number> = {};

describe('add account', () => {
  it('creates an account with account roles', async () => {
    const out = json(await cli('add', 'account', '--name', 'Site A', '--roles', 'Prosumer,Supplier', '--json'));
    expect(out).toEqual({ id: expect.any(Number), name: 'Site A', consultancy_account_id: null, account_roles: ['Prosumer', 'Supplier'] });
    ids.siteA = out.id;
  });

  it('creates a client of a consultancy; --json may come first', async () => {
    const out = json(await cli('--json', 'add', 'account', '--name', 'Client B', '--consultancy', String(ids.siteA)));
    expect(out).toEqual({ id: expect.any(Number), name: 'Client B', consultancy_account_id: ids.siteA, account_roles: [] });
    ids.clientB = out.id;
  });

  it('prints a line for people without --json', async () => {
    const res = await cli('add', 'account', '--name', 'Human');
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/^Created account \d+ "Human"\n$/);
    ids.human = Number(/account (\d+)/.exec(res.stdout)![1]);
  });

  it('refuses duplicates, unknown consultancies and bad ids', async () => {
    failure(await cli('add', 'account', '--name', 'Site A', '--json'), /already exists/);
    failure(await cli('add', 'account', '--name', 'X', '--consultancy', '999', '--json'), /Account 999 not found/);
    failure(await cli('add', 'account', '--name', 'X', '--consultancy', 'abc', '--json'), /expected a number/);
    failure(await cli('add', 'account', '--json'), /--name/);
  });
});

describe('add user', () => {
  it('creates a user with roles, time zone and switched off', async () => {
    const out = json(
      await cli(
        'add',
        'user',
        '--email',
        'admin@example.com',
        '--username',
        'admin',
        '--password',
        'a long secret',
        '--account',
        String(ids.siteA),
        '--roles',
        'admin,admin-reader,account-admin,consultant',
        '--timezone',
        'Europe/Berlin',
        '--inactive',
        '--json',
      ),
    );
    expect(out).toEqual({
      id: expect.any(Number),
      email: 'admin@example.com',
      username: 'admin',
      account_id: ids.siteA,
      roles: ['admin', 'admin-reader', 'account-admin', 'consultant'],
      active: false,
    });
    ids.inactiveAdmin = out.id;
  });

  it('makes up a password when none is given, and says it once', async () => {
    const out = json(
      await cli('add', 'user', '--email', 'member@example.com', '--username', 'member', '--account', String(ids.clientB), '--json'),
    );
    expect(out).toEqual({
      id: expect.any(Number),
      email: 'member@example.com',
      username: 'member',
      account_id: ids.clientB,
      roles: [],
      active: true,
      password: expect.stringMatching(/^.{20,}$/),
    });
    ids.member = out.id;
    await withServer(async (t) => {
      const login = await t.request('POST', '/api/requestAuthToken', { json: { email: 'member@example.com', password: out.password } });
      expect(login.status).toBe(200);
      // Only a bcrypt hash is stored.
      const hashes = await t.db('user').pluck('password_hash');
      for (const hash of hashes) expect(hash).toMatch(/^\$2[aby]\$1[0-9]\$[./A-Za-z0-9]{53}$/);
    });
  });

  it('refuses what cannot be a user, and stores nothing', async () => {
    const base = ['add', 'user', '--username', 'someone', '--password', 'a long secret', '--json'];
    failure(await cli(...base, '--email', 'not-an-email', '--account', String(ids.siteA)), /not a valid email address/);
    failure(await cli(...base, '--email', 'x@example.com', '--account', '999'), /account_id: Account with Id 999 doesn't exist/);
    failure(
      await cli(...base, '--email', 'x@example.com', '--account', String(ids.siteA), '--roles', 'superuser'),
      /Unknown role "superuser"/,
    );
    failure(
      await cli(...base, '--email', 'x@example.com', '--account', String(ids.siteA), '--timezone', 'Mars/Base'),
      /Timezone Mars\/Base doesn't exist/,
    );
    failure(await cli(...base, '--email', 'ADMIN@example.com', '--account', String(ids.siteA)), /already exists/);
    failure(
      await cli(
        'add',
        'user',
        '--username',
        'short',
        '--password',
        'short',
        '--email',
        'short@example.com',
        '--account',
        String(ids.siteA),
        '--json',
      ),
      /at least 8 characters/,
    );
    const users = json(await cli('list', 'users', '--json')).users.map((u: { email: string }) => u.email);
    expect(users).toEqual(['admin@example.com', 'member@example.com']);
  });
});

describe('add toy-account', () => {
  it('creates the toy account, its user, a battery and the public day-ahead prices, and reports every id', async () => {
    const out = json(await cli('add', 'toy-account', '--password', 'toy password', '--json'));
    expect(out).toEqual({
      account_id: expect.any(Number),
      user_id: expect.any(Number),
      battery_asset_id: expect.any(Number),
      battery_power_sensor_id: expect.any(Number),
      transmission_zone_asset_id: expect.any(Number),
      day_ahead_prices_sensor_id: expect.any(Number),
    });
    Object.assign(ids, { toy: out });

    await withServer(async (t) => {
      const login = await t.request('POST', '/api/requestAuthToken', {
        json: { email: 'toy-user@flexmeasures.io', password: 'toy password' },
      });
      expect(login.body).toEqual({ auth_token: expect.any(String), user_id: out.user_id, status: 200 });
      const token = login.body.auth_token;
      const account = await t.request('GET', `/api/v3_0/accounts/${out.account_id}`, { token });
      expect(account.body.name).toBe('Toy Account');
      expect(account.body.assets.map((a: { id: number }) => a.id)).toEqual([out.battery_asset_id]);
      const battery = await t.request('GET', `/api/v3_0/assets/${out.battery_asset_id}`, { token });
      expect(battery.body.generic_asset_type_id).toBe((await t.db('generic_asset_type').where({ name: 'battery' }).first()).id);
      const power = await t.request('GET', `/api/v3_0/sensors/${out.battery_power_sensor_id}`, { token });
      expect(power.body).toMatchObject({ name: 'power', unit: 'MW', event_resolution: 'PT15M', generic_asset_id: out.battery_asset_id });
      const publicAssets = await t.request('GET', '/api/v3_0/assets/public', { token });
      expect(publicAssets.body).toContainEqual(
        expect.objectContaining({ id: out.transmission_zone_asset_id, name: 'NL transmission zone', account_id: null }),
      );
      const prices = await t.request('GET', `/api/v3_0/sensors/${out.day_ahead_prices_sensor_id}`, { token });
      expect(prices.body).toMatchObject({
        name: 'day-ahead prices',
        unit: 'EUR/MWh',
        event_resolution: 'PT1H',
        generic_asset_id: out.transmission_zone_asset_id,
      });
    });
  });

  it('is idempotent: a second run reuses every part', async () => {
    const again = json(await cli('add', 'toy-account', '--json'));
    expect(again).toEqual(ids.toy);
  });
});

describe('list', () => {
  it('lists accounts, users, assets and sensors as one JSON object each', async () => {
    const toy = ids.toy as unknown as Record<string, number>;
    const accounts = json(await cli('list', 'accounts', '--json'));
    expect(accounts).toEqual({
      accounts: [
        { id: ids.siteA, name: 'Site A', consultancy_account_id: null },
        { id: ids.clientB, name: 'Client B', consultancy_account_id: ids.siteA },
        { id: ids.human, name: 'Human', consultancy_account_id: null },
        { id: toy.account_id, name: 'Toy Account', consultancy_account_id: null },
      ],
    });
    const users = json(await cli('list', 'users', '--json')).users;
    expect(users.map((u: { id: number }) => u.id)).toEqual([ids.inactiveAdmin, ids.member, toy.user_id]);
    expect(users[0]).toMatchObject({
      email: 'admin@example.com',
      active: false,
      roles: ['admin', 'admin-reader', 'account-admin', 'consultant'],
    });
    const assets = json(await cli('list', 'assets', '--json')).assets;
    expect(assets.map((a: { id: number; account_id: number | null }) => [a.id, a.account_id])).toEqual([
      [toy.battery_asset_id, toy.account_id],
      [toy.transmission_zone_asset_id, null],
    ]);
    const sensors = json(await cli('list', 'sensors', '--json')).sensors;
    expect(sensors.map((s: { id: number; attributes: unknown }) => [s.id, typeof s.attributes])).toEqual([
      [toy.battery_power_sensor_id, 'object'],
      [toy.day_ahead_prices_sensor_id, 'object'],
    ]);
    // Issue 32: power says which way is positive (the toy battery keeps 0.18's default); prices have no sign.
    expect(sensors.map((s: { sign: string | null }) => s.sign)).toEqual(['production positive', null]);
  });

  it('prints a table for people', async () => {
    const res = await cli('list', 'accounts');
    expect(res.code).toBe(0);
    expect(res.stdout.split('\n')[0]).toMatch(/^id\s+name\s+consultancy_account_id/);
  });

  it('refuses what it cannot list', async () => {
    failure(await cli('list', 'bananas', '--json'), /cannot list "bananas"/);
  });
});

describe('set password', () => {
  it('sets a password and revokes existing tokens', async () => {
    await withServer(async (t) => {
      const before = await t.request('POST', '/api/requestAuthToken', {
        json: { email: 'toy-user@flexmeasures.io', password: 'toy password' },
      });
      expect(before.status).toBe(200);
      const out = json(await cli('set', 'password', '--email', 'toy-user@flexmeasures.io', '--password', PASSWORD, '--json'));
      expect(out).toEqual({ id: (ids.toy as unknown as Record<string, number>).user_id, email: 'toy-user@flexmeasures.io' });
      expect((await t.request('GET', '/api/v3_0/assets', { token: before.body.auth_token })).status).toBe(401);
      const after = await t.request('POST', '/api/requestAuthToken', { json: { email: 'toy-user@flexmeasures.io', password: PASSWORD } });
      expect(after.status).toBe(200);
    });
    failure(await cli('set', 'password', '--email', 'nobody@example.com', '--password', PASSWORD, '--json'), /does not exist/);
  });
});

describe('delete', () => {
  it('refuses without --yes when nobody can be asked, and deletes nothing', async () => {
    const toy = ids.toy as unknown as Record<string, number>;
    for (const [what, id] of [
      ['sensor', toy.battery_power_sensor_id],
      ['asset', toy.battery_asset_id],
      ['user', ids.member],
      ['account', ids.clientB],
    ] as const) {
      failure(await cli('delete', what, '--id', String(id), '--json'), /refusing to delete without confirmation; pass --yes/);
    }
    const sensors = json(await cli('list', 'sensors', '--json')).sensors;
    expect(sensors).toHaveLength(2);
  });

  it('deletes a sensor, an asset, a user and an account with --yes', async () => {
    const toy = ids.toy as unknown as Record<string, number>;
    expect(json(await cli('delete', 'sensor', '--id', String(toy.day_ahead_prices_sensor_id), '--yes', '--json'))).toEqual({
      deleted: 'sensor',
      id: toy.day_ahead_prices_sensor_id,
    });
    expect(json(await cli('delete', 'asset', '--id', String(toy.battery_asset_id), '--yes', '--json'))).toEqual({
      deleted: 'asset',
      id: toy.battery_asset_id,
    });
    expect(json(await cli('delete', 'user', '--id', String(ids.member), '--yes', '--json'))).toEqual({ deleted: 'user', id: ids.member });
    expect(json(await cli('delete', 'account', '--id', String(toy.account_id), '--yes', '--json'))).toEqual({
      deleted: 'account',
      id: toy.account_id,
    });
    await withServer(async (t) => {
      expect(await t.db('sensor').pluck('id')).toEqual([]);
      expect(await t.db('generic_asset').pluck('id')).toEqual([toy.transmission_zone_asset_id]);
      expect(await t.db('user').orderBy('id').pluck('id')).toEqual([ids.inactiveAdmin]);
      expect(await t.db('account').orderBy('id').pluck('id')).toEqual([ids.siteA, ids.clientB, ids.human]);
    });
  });

  it('refuses unknown things and ids', async () => {
    failure(await cli('delete', 'sensor', '--id', '999', '--yes', '--json'), /sensor 999 not found/);
    failure(await cli('delete', 'sensor', '--id', 'abc', '--yes', '--json'), /expected a number/);
    failure(await cli('delete', 'planet', '--id', '1', '--yes', '--json'), /cannot delete "planet"/);
  });
});

describe('errors', () => {
  it('an unknown command exits non-zero with the reason on stderr', async () => {
    failure(await cli('launch', '--json'), /unknown command 'launch'/);
  });

  it('a bad setting is reported by name, without a stack trace', async () => {
    const res = await runCli(['list', 'accounts', '--json'], { FLEXSITE_DATA_DIR: dataDir, FLEXSITE_TOKEN_MAX_AGE: 'six hours' });
    failure(res, /FLEXSITE_TOKEN_MAX_AGE: expected a whole number/);
    expect(res.stderr).not.toMatch(/\bat \S+ \(/);
  });
});
