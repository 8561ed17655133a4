import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { lastJsonLine, runCli } from '../helpers/processes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

// Each command is a fresh Node process.
vi.setConfig({ testTimeout: 120_000 });

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let site: number;
let priceSensor: number;
let foreignSensor: number;
let tariffId: number;

const cli = (args: string[]) => runCli(['--json', ...args], { FLEXSITE_DATA_DIR: t.dataDir });

const home = (over: Record<string, unknown> = {}) => ({
  name: 'Home',
  timezone: 'Europe/Amsterdam',
  consumption_price_sensor: priceSensor,
  unit: 'EUR/kWh',
  price: 0.3,
  periods: [{ days: 'weekdays', from: '17:00', to: '21:00', price: 0.4 }],
  ...over,
});

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  site = (await f.asset({ accountId, type: 'building' })).id;
  priceSensor = (await f.sensor({ assetId: site, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' })).id;
  foreignSensor = (await f.sensor({ assetId: (await f.asset({ accountId: (await f.account()).id })).id, unit: 'EUR/MWh' })).id;
  const made = await t.request('POST', `/api/v3_0/assets/${site}/tariffs`, { token, json: home() });
  expect(made.status).toBe(201);
  tariffId = made.body.id;
});
afterAll(() => t.close());

const storedPrices = async () =>
  new Set((await t.db('timed_belief').where({ sensor_id: priceSensor })).map((r: { event_value: number }) => r.event_value));

describe('tariffs on the command line', () => {
  it('lists a tariff with its windows, in the unit entered', async () => {
    const listed = await cli(['list', 'tariffs', '--asset', String(site)]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(lastJsonLine(listed.stdout)).toEqual({
      tariffs: [
        {
          id: tariffId,
          name: 'Home',
          asset_id: site,
          price_sensor: priceSensor,
          unit: 'EUR/kWh',
          price: 0.3,
          windows: 'weekdays 17:00–21:00: 0.4',
        },
      ],
    });
  });

  it('refuses an empty window and another account’s sensor, changing nothing', async () => {
    const before = await t.db('tariff').where({ id: tariffId }).first();
    const empty = await cli([
      'edit',
      'tariff',
      '--id',
      String(tariffId),
      '--definition',
      JSON.stringify(home({ periods: [{ from: '07:00', to: '07:00', price: 0.4 }] })),
    ]);
    expect(empty.code).toBe(1);
    expect(empty.stderr).toContain('Ends when it starts (07:00–07:00)');
    const foreign = await cli([
      'edit',
      'tariff',
      '--id',
      String(tariffId),
      '--definition',
      JSON.stringify(home({ consumption_price_sensor: foreignSensor })),
    ]);
    expect(foreign.code).toBe(1);
    expect(await t.db('tariff').where({ id: tariffId }).first()).toEqual(before);
    expect(await t.db('timed_belief').where({ sensor_id: foreignSensor })).toEqual([]);
  });

  it('edits a tariff, its new prices superseding the old, and deletes it, withdrawing them', async () => {
    // 0.30 and 0.40 EUR/kWh are 300 and 400 EUR/MWh on the sensor.
    expect(await storedPrices()).toEqual(new Set([300, 400]));
    const edited = await cli(['edit', 'tariff', '--id', String(tariffId), '--definition', JSON.stringify(home({ price: 0.25 }))]);
    expect(edited.code, edited.stderr).toBe(0);
    expect(lastJsonLine(edited.stdout)).toMatchObject({ id: tariffId, price: 0.25, unit: 'EUR/kWh' });
    const listed = (await t.request('GET', `/api/v3_0/assets/${site}/tariffs`, { token })).body;
    expect(listed[0].definition).toMatchObject({ price: 0.25, unit: 'EUR/kWh' });
    // 0.25 EUR/kWh = 250 EUR/MWh, believed later than the 300s it replaces.
    expect(await storedPrices()).toEqual(new Set([300, 400, 250]));

    const deleted = await cli(['delete', 'tariff', '--id', String(tariffId), '--yes']);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(lastJsonLine(deleted.stdout)).toEqual({ deleted: 'tariff', id: tariffId });
    expect(await t.db('tariff')).toEqual([]);
    // Every price it wrote was from the start of today on: all withdrawn.
    expect(await t.db('timed_belief').where({ sensor_id: priceSensor })).toEqual([]);
    const [audit] = await t.db('audit_log').where({ affected_asset_id: site }).orderBy('id', 'desc').pluck('event');
    expect(audit).toMatch(new RegExp(`^Deleted tariff 'Home': ${tariffId}; withdrew its \\d+ prices from `));
  });
});
