import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forbidden, unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { schedulerPluginFolder } from '../helpers/schedulerPlugins.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

// Issue 19: `custom-scheduler` once made the worker import() whatever an account member stored.
// A module outside the plugin folder that leaves a marker file if it ever runs:
const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-evil-'));
const marker = path.join(outside, 'marker.txt');
const payload = `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(marker)}, 'code ran as uid ' + process.getuid()); export function schedule(p) { throw new Error('x'); }`;
fs.writeFileSync(path.join(outside, 'evil.mjs'), payload);
const plugins = schedulerPluginFolder();
// A plugin that reports what its thread was given: environment and resource limits.
const threadReport = path.join(outside, 'thread.json');
fs.writeFileSync(
  path.join(plugins, 'probe.mjs'),
  `import fs from 'node:fs';
import { resourceLimits } from 'node:worker_threads';
import { schedule as idle } from './idle.mjs';
export function schedule(problem) {
  fs.writeFileSync(${JSON.stringify(threadReport)}, JSON.stringify({ env: { ...process.env }, resourceLimits }));
  return idle(problem);
}
`,
);

/** Every way a module specifier could reach the old import(), none of them a registered plugin. */
const attempts: Record<string, string> = {
  'data: URL': `data:text/javascript,${payload}`,
  'absolute path': path.join(outside, 'evil.mjs'),
  'relative path with ..': path.relative(plugins, path.join(outside, 'evil.mjs')),
  'file: URL': pathToFileURL(path.join(outside, 'evil.mjs')).href,
  'node: built-in': 'node:child_process',
};

const START = '2015-01-02T00:00:00+01:00';
let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let priceSensor: number;
let batteryType: number;
const tokens: Record<'member' | 'account-admin' | 'admin', string> = { member: '', 'account-admin': '', admin: '' };

beforeAll(async () => {
  t = await startTestServer({ FLEXSITE_SCHEDULER_PLUGINS: plugins });
  f = factories(t.db);
  accountId = (await f.account()).id;
  tokens.member = (await f.user({ accountId })).token;
  tokens['account-admin'] = (await f.user({ accountId, roles: ['account-admin'] })).token;
  tokens.admin = (await f.user({ accountId: (await f.account()).id, roles: ['admin'] })).token;
  batteryType = await f.assetType('battery');
  const market = await f.asset({ accountId: null, type: 'transmission zone' });
  priceSensor = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  await f.beliefs(priceSensor, Date.parse(START), 3600_000, new Array(24).fill(50), Date.parse(START) - 86_400_000);
});
afterAll(async () => {
  await t.close();
  expect(fs.existsSync(marker)).toBe(false);
  fs.rmSync(outside, { recursive: true, force: true });
});

const attributesOf = async (table: 'generic_asset' | 'sensor', id: number) =>
  JSON.parse((await t.db(table).where({ id }).first('attributes')).attributes) as Record<string, unknown>;

/** The four writes that carry attributes, each answering with what was stored (or null). */
const writes = {
  'PATCH /assets': async (token: string, attributes: Record<string, unknown>) => {
    const asset = await f.asset({ accountId, attributes: { capacity_in_mw: 1 } });
    const res = await t.request('PATCH', `/api/v3_0/assets/${asset.id}`, { token, json: { attributes: JSON.stringify(attributes) } });
    return { res, stored: await attributesOf('generic_asset', asset.id), before: { capacity_in_mw: 1 } };
  },
  'POST /assets': async (token: string, attributes: Record<string, unknown>) => {
    const before = await t.db('generic_asset').count({ n: '*' }).first();
    const json = {
      name: `asset ${Math.random()}`,
      generic_asset_type_id: batteryType,
      account_id: accountId,
      attributes: JSON.stringify(attributes),
    };
    const res = await t.request('POST', '/api/v3_0/assets', { token, json });
    const after = await t.db('generic_asset').count({ n: '*' }).first();
    return { res, stored: after!.n === before!.n ? null : await attributesOf('generic_asset', res.body.id), before: null };
  },
  'PATCH /sensors': async (token: string, attributes: Record<string, unknown>) => {
    const sensor = await f.sensor({ assetId: (await f.asset({ accountId })).id, attributes: { capacity_in_mw: 1 } });
    const res = await t.request('PATCH', `/api/v3_0/sensors/${sensor.id}`, { token, json: { attributes: JSON.stringify(attributes) } });
    return { res, stored: await attributesOf('sensor', sensor.id), before: { capacity_in_mw: 1 } };
  },
  'POST /sensors': async (token: string, attributes: Record<string, unknown>) => {
    const asset = await f.asset({ accountId });
    const json = {
      name: 'power',
      unit: 'MW',
      event_resolution: 'PT15M',
      generic_asset_id: asset.id,
      attributes: JSON.stringify(attributes),
    };
    const res = await t.request('POST', '/api/v3_0/sensors', { token, json });
    const stored = await t.db('sensor').where({ generic_asset_id: asset.id }).first('id');
    return { res, stored: stored ? await attributesOf('sensor', stored.id) : null, before: null };
  },
};

describe('who may choose a custom scheduler', () => {
  for (const [write, run] of Object.entries(writes)) {
    for (const role of ['member', 'account-admin'] as const) {
      it(`${write}: a ${role} is refused any value, a registered plugin included, and nothing is stored`, async () => {
        for (const value of [...Object.values(attempts), 'idle']) {
          const { res, stored, before } = await run(tokens[role], { 'custom-scheduler': value });
          expect(res.status, value).toBe(403);
          expect(res.body).toEqual(forbidden);
          expect(stored).toEqual(before);
        }
      });
    }

    it(`${write}: a platform admin gets a 422 naming the registered plugins for anything but a plugin's name`, async () => {
      for (const [what, value] of Object.entries(attempts)) {
        const { res, stored, before } = await run(tokens.admin, { 'custom-scheduler': value });
        expect(res.status, what).toBe(422);
        const shown = JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
        expect(res.body).toEqual(
          unprocessable('json', {
            attributes: [`custom-scheduler ${shown} is not a registered scheduler plugin (registered: held, idle, probe)`],
          }),
        );
        expect(stored).toEqual(before);
      }
    });

    it(`${write}: a platform admin may select a registered plugin`, async () => {
      const { res, stored } = await run(tokens.admin, { capacity_in_mw: 1, 'custom-scheduler': 'idle' });
      expect(res.status).toBe(write.startsWith('POST') ? 201 : 200);
      expect(stored).toEqual({ capacity_in_mw: 1, 'custom-scheduler': 'idle' });
    });
  }

  it('leaves members free to edit other attributes, but not to remove the choice', async () => {
    const asset = await f.asset({ accountId, attributes: { capacity_in_mw: 1, 'custom-scheduler': 'idle' } });
    const patch = (attributes: Record<string, unknown>) =>
      t.request('PATCH', `/api/v3_0/assets/${asset.id}`, { token: tokens.member, json: { attributes: JSON.stringify(attributes) } });
    expect((await patch({ capacity_in_mw: 2, 'custom-scheduler': 'idle' })).status).toBe(200);
    expect((await patch({ capacity_in_mw: 3 })).status).toBe(403);
    expect(await attributesOf('generic_asset', asset.id)).toEqual({ capacity_in_mw: 2, 'custom-scheduler': 'idle' });
  });
});

describe('running a custom scheduler', () => {
  const trigger = (sensorId: number) =>
    t.request('POST', `/api/v3_0/sensors/${sensorId}/schedules/trigger`, {
      token: tokens.member,
      json: {
        start: START,
        'flex-model': { 'soc-at-start': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
        'flex-context': { 'consumption-price-sensor': priceSensor },
      },
    });

  it('runs a registered plugin that a platform admin selected, and serves its schedule', async () => {
    const asset = await f.asset({ accountId, type: 'battery' });
    const sensor = await f.sensor({ assetId: asset.id });
    const patch = { attributes: JSON.stringify({ 'custom-scheduler': 'idle' }) };
    expect((await t.request('PATCH', `/api/v3_0/assets/${asset.id}`, { token: tokens.admin, json: patch })).status).toBe(200);
    const res = await trigger(sensor.id);
    expect(res.status).toBe(200);
    const schedule = await waitForSchedule(t, tokens.member, sensor.id, res.body.schedule, 'PT1H');
    expect(schedule.status).toBe(200);
    // The idle plugin keeps the battery idle, where the optimiser would charge at 50 EUR/MWh only to sell at 50.
    expect(schedule.body.values).toEqual([0, 0, 0, 0]);
  });

  it("runs plugins in threads that hold none of the server's environment, within memory limits", async () => {
    process.env.FLEXSITE_TEST_SECRET = 'not for plugins';
    try {
      const sensor = await f.sensor({ assetId: (await f.asset({ accountId, attributes: { 'custom-scheduler': 'probe' } })).id });
      const res = await trigger(sensor.id);
      expect((await waitForSchedule(t, tokens.member, sensor.id, res.body.schedule, 'PT1H')).status).toBe(200);
    } finally {
      delete process.env.FLEXSITE_TEST_SECRET;
    }
    const report = JSON.parse(fs.readFileSync(threadReport, 'utf8'));
    expect(report.env).toEqual({});
    expect(report.resourceLimits).toMatchObject({ maxOldGenerationSizeMb: 2048, maxYoungGenerationSizeMb: 64, stackSizeMb: 4 });
  });

  for (const [what, value] of Object.entries(attempts)) {
    it(`fails the job with the reason when a ${what} is already stored, running nothing`, async () => {
      // Stored before this version, or straight into the store: the worker refuses it all the same.
      const asset = await f.asset({ accountId, type: 'building' });
      const sensor = await f.sensor({ assetId: asset.id, attributes: { 'custom-scheduler': value } });
      const res = await trigger(sensor.id);
      expect(res.status).toBe(200);
      const schedule = await waitForSchedule(t, tokens.member, sensor.id, res.body.schedule, 'PT1H');
      expect(schedule.status).toBe(400);
      const job = await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token: tokens.member });
      expect(job.body.status).toBe('failed');
      expect(job.body.error).toMatch(
        /^SchedulerError: custom-scheduler ".*" is not a registered scheduler plugin \(registered: held, idle, probe\)$/s,
      );
      expect(schedule.body.message).toContain(
        'is not a registered scheduler plugin (registered: held, idle, probe). StorageScheduler was used.',
      );
      expect(fs.existsSync(marker)).toBe(false);
    });
  }
});
