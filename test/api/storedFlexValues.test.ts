import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/db.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** Issue 20: stored flex configuration gets the value rules of a trigger; bad values are a 422 and nothing is stored. */

let t: TestServer;
let token: string;
let assetId: number;
let eurPrices: number;
let batteryTypeId: number;
let accountId: number;

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  assetId = (await f.asset({ accountId })).id;
  eurPrices = (await f.sensor({ assetId, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  batteryTypeId = await f.assetType('battery');
});
afterAll(() => t.close());

const segment = (start: string, end: string, value: string) => [{ start, end, value }];

/** Each bad value, the field it is stored under, and the message path the 422 names. */
const cases: [string, 'flex_model' | 'flex_context', Record<string, unknown>, (string | number)[]][] = [
  ['a NaN price', 'flex_context', { 'consumption-price': 'NaN EUR/MWh' }, ['consumption-price']],
  ['an infinite price', 'flex_context', { 'consumption-price': 'inf EUR/MWh' }, ['consumption-price']],
  ['a negative breach price', 'flex_context', { 'consumption-breach-price': '-10 EUR/MW' }, ['consumption-breach-price']],
  ['a breach price of 1e120', 'flex_context', { 'soc-minima-breach-price': '1e120 EUR/MWh' }, ['soc-minima-breach-price']],
  ['an unknown currency', 'flex_context', { 'production-price': '10 XYZ/MWh' }, ['production-price']],
  [
    'a currency other than the price sensor’s',
    'flex_context',
    { 'consumption-price': { sensor: 0 }, 'production-price': '10 USD/MWh' },
    ['production-price'],
  ],
  ['a NaN energy', 'flex_model', { 'soc-max': 'NaN MWh' }, ['soc-max']],
  ['a negative power capacity', 'flex_model', { 'power-capacity': '-1 MW' }, ['power-capacity']],
  ['an efficiency above 1', 'flex_model', { 'charging-efficiency': '120%' }, ['charging-efficiency']],
  [
    'a negative segment capacity',
    'flex_context',
    { 'site-power-capacity': segment('2015-01-01T00:00:00Z', '2015-01-02T00:00:00Z', '-2 MW') },
    ['site-power-capacity', 0, 'value'],
  ],
  [
    'a reversed time segment',
    'flex_context',
    { 'site-power-capacity': segment('2015-01-02T00:00:00Z', '2015-01-01T00:00:00Z', '2 MW') },
    ['site-power-capacity', 0, '_schema'],
  ],
  ['a NaN sensor default', 'flex_model', { 'power-capacity': { sensor: 0, default: 'NaN MW' } }, ['power-capacity', 'default']],
];

/** The sensor placeholders (0) made concrete. */
const withSensor = (config: Record<string, unknown>) =>
  JSON.parse(JSON.stringify(config).replaceAll('"sensor":0', `"sensor":${eurPrices}`));

const pathOf = (body: Record<string, unknown>, path: (string | number)[]) =>
  path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[String(key)], body);

describe('stored flex configuration values', () => {
  for (const [name, field, config, path] of cases) {
    it(`refuses ${name} on PATCH and POST with a 422 under ${field}.${path.join('.')}, storing nothing`, async () => {
      const before = await snapshot(t.db);
      const json = JSON.stringify(withSensor(config));
      const patched = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, { token, json: { [field]: json } });
      expect(patched.status, JSON.stringify(patched.body)).toBe(422);
      expect(pathOf(patched.body.message.json[field], path)).toEqual([expect.any(String)]);
      const posted = await t.request('POST', '/api/v3_0/assets', {
        token,
        json: { name: `bad ${name}`, generic_asset_type_id: batteryTypeId, account_id: accountId, [field]: json },
      });
      expect(posted.status).toBe(422);
      expect(await snapshot(t.db)).toEqual(before);
    });
  }

  it('keeps good values, with one currency across fixed prices and price sensors', async () => {
    const context = {
      'consumption-price': { sensor: eurPrices },
      'production-price': '-5 EUR/MWh',
      'consumption-breach-price': '1000 EUR/MW',
      // Commitment prices per MW or per MWh, as a trigger takes them.
      commitments: [
        { name: 'grid fee', baseline: '0 kW', 'up-price': '10 EUR/MWh' },
        { name: 'peak', baseline: '1 MW', 'up-price': '2 EUR/kW', 'down-price': '0 EUR/kW' },
      ],
      'site-power-capacity': segment('2015-01-01T00:00:00Z', '2015-01-02T00:00:00Z', '2 MW'),
    };
    const res = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, {
      token,
      json: { flex_context: JSON.stringify(context), flex_model: JSON.stringify({ 'soc-max': '2 MWh', 'charging-efficiency': '95%' }) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(JSON.parse(res.body.flex_context)).toEqual(context);
  });
});

describe('trigger durations', () => {
  it('answer a duration far beyond the planning horizon with a 422 before any date arithmetic', async () => {
    const power = await factories(t.db).sensor({ assetId });
    for (const duration of ['P99999999D', 'P1000Y']) {
      const res = await t.request('POST', `/api/v3_0/sensors/${power.id}/schedules/trigger`, {
        token,
        json: { start: '2015-01-01T00:00:00Z', duration, 'flex-model': { 'soc-at-start': 0, 'soc-max': 1, 'power-capacity': '1 MW' } },
      });
      expect(res.status).toBe(422);
      expect(res.body.message.json.duration).toEqual([expect.stringMatching(/exceeds the maximum planning horizon/)]);
    }
  });
});
