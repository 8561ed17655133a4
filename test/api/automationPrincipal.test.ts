import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { householdLoad } from '../../bench/_forecastSeries.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Issue 20: an automation acts for its maker with the maker's rights as they are when it runs.
 * A run records its principal (the automation, for its maker) and the asset's account, and so
 * does the schedule it starts; once the maker was deactivated or lost the role their rights came
 * from, the run is refused (a `forbidden` failure) and writes nothing.
 */

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountA: number;
let platformAdmin: { user: { id: number }; token: string };

const STEP = 900_000;
const HISTORY_START = Date.parse('2027-01-30T00:00:00Z');
const DAY = 86_400_000;

/** A building of account A with a load sensor holding eight weeks of measurements, and a battery beside it. */
async function site() {
  const building = await f.asset({ accountId: accountA, type: 'building' });
  const load = await f.sensor({ assetId: building.id, unit: 'kW', timezone: 'Europe/Amsterdam' });
  await f.beliefs(load.id, HISTORY_START, STEP, householdLoad(HISTORY_START, STEP, 56 * 96).values, HISTORY_START + 56 * DAY);
  const battery = await f.asset({ accountId: accountA, type: 'battery' });
  const power = await f.sensor({ assetId: battery.id, unit: 'kW', timezone: 'Europe/Amsterdam' });
  const stored = await t.request('PATCH', `/api/v3_0/assets/${battery.id}`, {
    token: platformAdmin.token,
    json: {
      flex_model: JSON.stringify({ 'soc-at-start': '10 kWh', 'soc-min': '0 kWh', 'soc-max': '20 kWh', 'power-capacity': '5 kW' }),
      flex_context: JSON.stringify({ 'consumption-price': '20 EUR/MWh' }),
    },
  });
  expect(stored.status).toBe(200);
  return { building: building.id, load: load.id, battery: battery.id, power: power.id };
}

const beliefCount = async (sensorId: number) =>
  Number((await t.db('timed_belief').where({ sensor_id: sensorId }).count({ n: '*' }).first())!.n);

/** Runs what is due at `atMs` and waits for the automation's run. */
async function runDue(automationId: number, atMs: number) {
  expect(await t.server.automations.tick(atMs)).toBe(1);
  const jobs = await t.db('job').where({ queue: 'automation' }).orderBy('created_at', 'desc');
  const run = jobs.find((j) => JSON.parse(j.args).automationId === automationId)!;
  await t.server.services.jobs.settled(run.id, 60_000);
  return (await t.request('GET', `/api/v3_0/jobs/${run.id}`, { token: platformAdmin.token })).body;
}

async function make(assetId: number, token: string, body: Record<string, unknown>) {
  const made = await t.request('POST', `/api/v3_0/assets/${assetId}/automations`, { token, json: { name: 'plan', ...body } });
  expect(made.status).toBe(201);
  return made.body.id as number;
}

/** Switches an automation off, so that later ticks leave it alone. */
const disable = (id: number) => t.request('PATCH', `/api/v3_0/automations/${id}`, { token: platformAdmin.token, json: { enabled: false } });

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountA = (await f.account()).id;
  platformAdmin = await f.user({ accountId: (await f.account()).id, roles: ['admin'] });
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

describe('an automation acts for its maker, with the maker’s current rights', () => {
  it('records its principal on its runs and on the schedule it starts, and is refused once its maker lost the admin role', async () => {
    const s = await site();
    // An admin of another account: their rights over account A's site come from the role alone.
    const maker = await f.user({ accountId: (await f.account()).id, roles: ['admin'] });
    const id = await make(s.battery, maker.token, { cron: '0 6 * * *', forecast_sensor_ids: [s.load], schedule_sensor_id: s.power });

    const first = await runDue(id, Date.parse('2027-03-27T05:30:00Z'));
    expect(first).toMatchObject({ status: 'finished', result: { schedule_job_id: expect.any(String) } });
    // The run and the schedule it started are the automation's, for its maker, on account A.
    const principal = { kind: 'automation', automationId: id, ownerId: maker.user.id };
    expect(first).toMatchObject({ account_id: accountA, args: { automationId: id, principal } });
    await t.server.services.jobs.settled(first.result.schedule_job_id, 60_000);
    const schedule = await t.request('GET', `/api/v3_0/jobs/${first.result.schedule_job_id}`, { token: platformAdmin.token });
    expect(schedule.body).toMatchObject({ status: 'finished', account_id: accountA, args: { principal } });

    // Another admin takes the role away through the API.
    const demoted = await t.request('PATCH', `/api/v3_0/users/${maker.user.id}`, {
      token: platformAdmin.token,
      json: { flexmeasures_roles: [] },
    });
    expect(demoted.status).toBe(200);
    const [load, power, schedules] = [
      await beliefCount(s.load),
      await beliefCount(s.power),
      await t.db('job').where({ queue: 'scheduling' }),
    ];
    const second = await runDue(id, Date.parse('2027-03-28T04:30:00Z'));
    expect(second).toMatchObject({ status: 'failed', error_kind: 'forbidden' });
    expect(second.error).toMatch(
      /^PermissionDenied: the user who made automation \d+ \(id \d+\) or the account of sensor \d+ may no longer write sensor \d+; nothing was stored\.$/,
    );
    expect(await beliefCount(s.load)).toBe(load);
    expect(await beliefCount(s.power)).toBe(power);
    expect(await t.db('job').where({ queue: 'scheduling' })).toHaveLength(schedules.length);
    await disable(id);
  });

  it('is refused, writing nothing and starting no schedule, once its maker was deactivated', async () => {
    const s = await site();
    const maker = await f.user({ accountId: accountA, roles: ['account-admin'] });
    const id = await make(s.battery, maker.token, { cron: '0 7 * * *', forecast_sensor_ids: [s.load], schedule_sensor_id: s.power });
    const off = await t.request('PATCH', `/api/v3_0/users/${maker.user.id}`, { token: platformAdmin.token, json: { active: false } });
    expect(off.status).toBe(200);
    const schedules = await t.db('job').where({ queue: 'scheduling' });
    const run = await runDue(id, Date.parse('2027-03-29T05:30:00Z'));
    expect(run).toMatchObject({ status: 'failed', error_kind: 'forbidden' });
    expect(run.error).toBe(
      `PermissionDenied: the user who made automation ${id} (id ${maker.user.id}) is no longer active; nothing was run.`,
    );
    // Only the fixtures' measurements: no forecast, no schedule.
    expect(await beliefCount(s.load)).toBe(56 * 96);
    expect(await beliefCount(s.power)).toBe(0);
    expect(await t.db('job').where({ queue: 'scheduling' })).toHaveLength(schedules.length);
    // It can still be paused, but not pointed at sensors: there is nobody whose rights could write them.
    const renamed = await t.request('PATCH', `/api/v3_0/automations/${id}`, {
      token: platformAdmin.token,
      json: { schedule_sensor_id: s.power },
    });
    expect(renamed.status).toBe(422);
    expect(renamed.body.message.json.owner_id[0]).toMatch(/not found or inactive/);
    expect((await disable(id)).status).toBe(200);
    expect(await t.db('automation').where({ id }).first()).toMatchObject({ enabled: expect.anything(), schedule_sensor_id: s.power });
    expect(Boolean((await t.db('automation').where({ id }).first()).enabled)).toBe(false);
  });
});
