import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Plain device set-up (POST /assets/<site>/devices) and recurring SoC targets: what is stored,
 * the 422s that store nothing, strangers refused, and an automation run that turns "80 % by
 * 07:00 on weekdays" into its schedule's soc-targets.
 */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let otherToken: string;
let accountId: number;
let site: number;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  site = (await f.asset({ accountId, type: 'building', name: 'Home' })).id;
  otherToken = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

const setUp = (json: Record<string, unknown>, as = token, siteId = site) =>
  t.request('POST', `/api/v3_0/assets/${siteId}/devices`, { token: as, json });

/** Counts of what a set-up writes, to show that a refused one wrote nothing. */
const counts = async () => ({
  assets: Number((await t.db('generic_asset').count({ n: '*' }).first())!.n),
  sensors: Number((await t.db('sensor').count({ n: '*' }).first())!.n),
  targets: Number((await t.db('recurring_soc_target').count({ n: '*' }).first())!.n),
});

/** The asset as the API stores it, flex-model parsed. */
async function storedAsset(id: number) {
  const res = await t.request('GET', `/api/v3_0/assets/${id}`, { token });
  expect(res.status).toBe(200);
  return { ...res.body, flex_model: JSON.parse(res.body.flex_model ?? '{}'), flex_context: JSON.parse(res.body.flex_context ?? '{}') };
}

const sensorsOf = async (assetId: number) =>
  ((await t.request('GET', '/api/v3_0/sensors', { token, query: { asset_id: assetId } })).body as Record<string, unknown>[]).map(
    ({ name, unit, timezone, event_resolution }) => ({ name, unit, timezone, event_resolution }),
  );

describe('device set-up', () => {
  it('makes a battery: its asset under the site, power and SoC sensors in the given zone, and a flex-model in the units entered', async () => {
    const res = await setUp({
      kind: 'battery',
      name: 'Home battery',
      timezone: 'Europe/Amsterdam',
      power: '5 kW',
      capacity: '10 kWh',
      soc_min: '10%',
      charging_efficiency: '95%',
      discharging_efficiency: '95%',
    });
    expect(res.status).toBe(201);
    const { asset, sensors } = res.body;
    expect(asset).toMatchObject({ name: 'Home battery', generic_asset_type: 'battery', parent_asset_id: site });
    const [power, soc] = sensors.map((s: { id: number }) => s.id);
    const stored = await storedAsset(asset.id);
    expect(stored).toMatchObject({ parent_asset_id: site, account_id: accountId });
    // 10 % of 10 kWh is 1 kWh; nothing is turned into MW.
    expect(stored.flex_model).toEqual({
      'power-capacity': '5 kW',
      'soc-max': '10 kWh',
      'soc-min': '1 kWh',
      'charging-efficiency': '95%',
      'discharging-efficiency': '95%',
      'state-of-charge': { sensor: soc },
    });
    expect(await sensorsOf(asset.id)).toEqual([
      { name: 'Home battery power', unit: 'kW', timezone: 'Europe/Amsterdam', event_resolution: 'PT15M' },
      { name: 'Home battery state of charge', unit: '%', timezone: 'Europe/Amsterdam', event_resolution: 'P0D' },
    ]);
    expect(power).toBeLessThan(soc);
    expect(res.body.soc_targets).toEqual([]);
  });

  it('makes a one-way EV charger with recurring targets, in the caller’s time zone by default', async () => {
    const res = await setUp({
      kind: 'ev-charger',
      name: 'Car',
      power: '11 kW',
      capacity: '60 kWh',
      charging_efficiency: '90%',
      soc_targets: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '07:00', value: '80%' }],
    });
    expect(res.status).toBe(201);
    expect(res.body.asset.generic_asset_type).toBe('one-way_evse');
    const stored = await storedAsset(res.body.asset.id);
    expect(stored.flex_model).toEqual({
      'power-capacity': '11 kW',
      'soc-max': '60 kWh',
      'charging-efficiency': '90%',
      'production-capacity': '0 kW',
      'state-of-charge': { sensor: res.body.sensors[1].id },
    });
    // The user factory's zone, as `POST /users` sets it.
    const zone = 'Europe/Amsterdam';
    expect((await sensorsOf(res.body.asset.id)).map((s) => s.timezone)).toEqual([zone, zone]);
    const targets = await t.request('GET', `/api/v3_0/assets/${res.body.asset.id}/recurring-soc-targets`, { token });
    expect(targets.body.targets).toEqual([
      { id: expect.any(Number), days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '07:00', timezone: zone, value: '80%' },
    ]);
  });

  it('adds solar panels to the site’s flex-context as an inflexible device, and keeps their peak', async () => {
    const res = await setUp({ kind: 'pv', name: 'Roof PV', timezone: 'Europe/Amsterdam', power: '5 kW' });
    expect(res.status).toBe(201);
    const pv = res.body.sensors[0].id;
    const panels = await storedAsset(res.body.asset.id);
    expect(panels).toMatchObject({ flex_model: {} });
    expect(JSON.parse(panels.attributes)).toEqual({ capacity_in_mw: 0.005 });
    expect((await storedAsset(site)).flex_context).toEqual({ 'inflexible-device-sensors': [pv] });
  });

  it('makes a process whose power is the scheduler’s MW', async () => {
    const res = await setUp({ kind: 'process', name: 'Heat pump', power: '2 kW', duration: 'PT2H', process_type: 'BREAKABLE' });
    expect(res.status).toBe(201);
    expect((await storedAsset(res.body.asset.id)).flex_model).toEqual({ power: 0.002, duration: 'PT2H', 'process-type': 'BREAKABLE' });
  });

  it('refuses a power no device has (1e120 kW) with a field message, storing nothing (issue 28)', async () => {
    const before = await t.db('generic_asset').count({ n: '*' });
    const res = await setUp({ kind: 'battery', name: 'Huge battery', power: '1e120 kW', capacity: '10 kWh' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.message.json.power).toEqual([expect.stringMatching(/at most/)]);
    expect(await t.db('generic_asset').count({ n: '*' })).toEqual(before);
  });

  it('answers bad quantities with field messages and stores nothing', async () => {
    const before = await counts();
    const res = await setUp({
      kind: 'ev-charger',
      name: 'Bad car',
      power: '11 kWh',
      capacity: '-60 kWh',
      charging_efficiency: '150%',
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.message.json).sort()).toEqual(['capacity', 'charging_efficiency', 'power']);
    expect(res.body.message.json.charging_efficiency).toEqual(['Must be greater than 0 and less than or equal to 1.']);

    const unknownKind = await setUp({ kind: 'windmill', name: 'x', power: '5 kW' });
    expect(unknownKind.status).toBe(422);
    expect(Object.keys(unknownKind.body.message.json)).toEqual(['kind']);
    const noUnit = await setUp({ kind: 'battery', name: 'x', power: '5', capacity: '10 kWh' });
    expect(noUnit.status).toBe(422);
    expect(noUnit.body.message.json.power).toEqual(['Give a number with its unit, e.g. "5 kW".']);

    const target = await setUp({
      kind: 'ev-charger',
      name: 'Car 2',
      power: '11 kW',
      capacity: '60 kWh',
      soc_targets: [
        { days: ['mon'], time: '07:00', value: '120%' },
        { days: ['sat'], time: '09:00', value: '70 kWh' },
        { days: ['sun', 'mon'], time: '07:00', value: '50%' },
      ],
    });
    expect(target.status).toBe(422);
    expect(target.body.message.json).toEqual({
      soc_targets: {
        0: { value: ['Must be greater than 0 % and at most 100 %.'] },
        1: { value: ['Must not exceed the capacity (60 kWh).'] },
        2: { days: ['Another target is already set for mon at 07:00.'] },
      },
    });
    expect((await setUp({ kind: 'battery', name: 'Home battery', power: '5 kW', capacity: '10 kWh' })).body.message.json).toEqual({
      name: ["The site already has an asset named 'Home battery'."],
    });
    expect(await counts()).toEqual(before);
  });

  it('refuses strangers, unknown sites and anonymous callers', async () => {
    const before = await counts();
    const body = { kind: 'battery', name: 'Theirs', power: '5 kW', capacity: '10 kWh' };
    expect((await setUp(body, otherToken)).status).toBe(403);
    expect((await setUp(body, token, 999_999)).status).toBe(404);
    expect((await t.request('POST', `/api/v3_0/assets/${site}/devices`, { json: body })).status).toBe(401);
    expect(await counts()).toEqual(before);
  });
});

describe('recurring SoC targets', () => {
  let ev: number;

  beforeAll(async () => {
    ev = (await setUp({ kind: 'ev-charger', name: 'Van', timezone: 'Europe/Amsterdam', power: '7 kW', capacity: '40 kWh' })).body.asset.id;
  });

  const put = (assetId: number, targets: unknown[], as = token) =>
    t.request('PUT', `/api/v3_0/assets/${assetId}/recurring-soc-targets`, { token: as, json: { targets } });

  it('are replaced as a whole, and read in the device’s zone unless a target names one', async () => {
    expect((await put(ev, [{ days: ['sat'], time: '10:00', value: '50%' }])).status).toBe(200);
    const res = await put(ev, [
      { days: ['mon', 'wed'], time: '06:30', value: '32 kWh' },
      { days: ['sun'], time: '18:00', value: '100%', timezone: 'UTC' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.targets.map(({ id: _, ...rest }: { id: number }) => rest)).toEqual([
      { days: ['mon', 'wed'], time: '06:30', timezone: 'Europe/Amsterdam', value: '32 kWh' },
      { days: ['sun'], time: '18:00', timezone: 'UTC', value: '100%' },
    ]);
    expect(await t.db('recurring_soc_target').where({ asset_id: ev }).count({ n: '*' }).first()).toEqual({ n: 2 });
  });

  it('need a capacity for a percentage, and refuse strangers; nothing changes', async () => {
    const bare = (await f.asset({ accountId, type: 'one-way_evse' })).id;
    const noCapacity = await put(bare, [{ days: ['mon'], time: '07:00', value: '80%' }]);
    expect(noCapacity.status).toBe(422);
    expect(noCapacity.body.message.json).toEqual({
      targets: { 0: { value: ["A percentage needs the device's capacity: store soc-max in its flex-model, or give an energy."] } },
    });
    const badTime = await put(ev, [{ days: ['mon'], time: '7:00', value: '80%' }]);
    expect(badTime.status).toBe(422);
    expect(badTime.body.message.json.targets[0].time).toEqual(['Use HH:mm, e.g. 07:00.']);
    expect((await put(ev, [], otherToken)).status).toBe(403);
    expect((await t.request('GET', `/api/v3_0/assets/${ev}/recurring-soc-targets`, { token: otherToken })).status).toBe(403);
    expect(await t.db('recurring_soc_target').where({ asset_id: ev }).count({ n: '*' }).first()).toEqual({ n: 2 });
    expect(await t.db('recurring_soc_target').where({ asset_id: bare }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });
});

describe('an automation run with recurring targets', () => {
  it('schedules a Friday-evening run for Monday 07:00 local, across the end of summer time, and the schedule meets it', async () => {
    const car = await setUp({
      kind: 'ev-charger',
      name: 'Weekday car',
      timezone: 'Europe/Amsterdam',
      power: '11 kW',
      capacity: '60 kWh',
      charging_efficiency: '90%',
      soc_targets: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '07:00', value: '80%' }],
    });
    expect(car.status).toBe(201);
    const [power, soc] = car.body.sensors.map((s: { id: number }) => s.id);
    const patched = await t.request('PATCH', `/api/v3_0/assets/${site}`, {
      token,
      json: { flex_context: JSON.stringify({ 'consumption-price': '20 EUR/MWh' }) },
    });
    expect(patched.status).toBe(200);
    // Friday 29 October 2027, 20:00 in Amsterdam (CEST, UTC+2); the clocks go back early on Sunday.
    const due = Date.parse('2027-10-29T18:00:00Z');
    await f.beliefs(soc, due, 0, [25], due);
    const made = await t.request('POST', `/api/v3_0/assets/${car.body.asset.id}/automations`, {
      token,
      json: { name: 'charge', cron: '0 20 * * 5', schedule_sensor_id: power, horizon: 'P3D' },
    });
    expect(made.status).toBe(201);
    expect(made.body.timezone).toBe('Europe/Amsterdam');
    await t
      .db('automation')
      .where({ id: made.body.id })
      .update({ last_due: due - 7 * 86_400_000 });
    await t.server.automations.tick(due + 60_000);
    const runs = await t.db('job').where({ queue: 'automation' }).select<{ id: string; args: string }[]>('id', 'args');
    const run = runs.find((j) => JSON.parse(j.args).automationId === made.body.id)!;
    await t.server.services.jobs.settled(run.id, 30_000);
    const result = (await t.request('GET', `/api/v3_0/jobs/${run.id}`, { token })).body;
    expect(result.status).toBe('finished');
    // Until Monday 20:00 CET only Monday's target falls in the run; 80 % of 60 kWh is 48 kWh; 07:00 CET is 06:00 UTC.
    expect(result.result.soc_targets).toEqual([{ value: '48 kWh', datetime: '2027-11-01T07:00:00+01:00' }]);

    const scheduling = (await t.request('GET', `/api/v3_0/jobs/${result.result.schedule_job_id}`, { token })).body;
    const spec = scheduling.args.spec;
    expect(spec.devices[0].socTargets).toEqual([{ valueMwh: 0.048, atMs: Date.parse('2027-11-01T06:00:00Z') }]);
    expect(spec.devices[0].socAtStartMwh).toBeCloseTo(0.015, 12);
    await t.server.services.jobs.settled(result.result.schedule_job_id, 60_000);
    expect((await t.request('GET', `/api/v3_0/jobs/${result.result.schedule_job_id}`, { token })).body.status).toBe('finished');

    // The stored schedule runs from Friday 20:00 CEST to Monday 20:00 CET, 73 hours; the API shows its first 48.
    expect(spec.endMs - spec.startMs).toBe(73 * 3600_000);
    const schedule = await t.request('GET', `/api/v3_0/sensors/${power}/schedules/${result.result.schedule_job_id}`, { token });
    expect(schedule.status).toBe(200);
    const values = schedule.body.values as number[];
    expect(Math.max(...values)).toBeLessThanOrEqual(11 + 1e-9);
    // From 15 kWh (25 %), 90 % of what it draws makes up the 33 kWh to 48 kWh, and not more.
    expect(15 + 0.9 * values.reduce((sum, kw) => sum + kw / 4, 0)).toBeCloseTo(48, 6);
    // The scheduled state of charge, written to the SoC sensor in its unit: 80 % at Monday 07:00 CET.
    const scheduledSoc = await t
      .db('timed_belief')
      .where({ sensor_id: soc, event_start: Date.parse('2027-11-01T06:00:00Z') })
      .whereIn('source_id', t.db('data_source').where({ type: 'scheduler' }).select('id'))
      .first('event_value');
    expect(scheduledSoc.event_value).toBeCloseTo(80, 6);
  });
});
