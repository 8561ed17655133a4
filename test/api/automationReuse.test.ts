import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { householdLoad } from '../../bench/_forecastSeries.ts';
import { SimulatedClock } from '../../server/src/clock.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

const MINUTE = 60_000;
const HOUR = 3_600_000;
const START = Date.parse('2027-03-01T06:00:00Z');

let t: TestServer;
let clock: SimulatedClock;
let f: ReturnType<typeof factories>;
let token: string;
let otherToken: string;
let priceSensor: number;
let socSensor: number;
let batterySensor: number;
let automationId: number;
let siteId: number;

interface Run {
  id: string;
  dueMs: number;
  result: {
    schedule_job_id: string;
    schedule_job_reused?: true;
    without_queue?: true;
    forecasts: { sensor_id: number; data_source_id: number; reused?: true }[];
  };
}

/** An automation's finished runs, by due time, as the jobs API reports them. */
async function runs(of = automationId): Promise<Run[]> {
  const rows = await t.db('job').where({ queue: 'automation' }).select<{ id: string; args: string }[]>('id', 'args');
  const ours = rows
    .map((r) => ({ id: r.id, ...(JSON.parse(r.args) as { automationId: number; dueMs: number }) }))
    .filter((r) => r.automationId === of);
  const read = await Promise.all(
    ours.map(async (r) => {
      const res = await t.request('GET', `/api/v3_0/jobs/${r.id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('finished');
      return { ...r, result: res.body.result } as Run;
    }),
  );
  return read.sort((a, b) => a.dueMs - b.dueMs);
}

/** How many schedule jobs were queued for a power sensor. */
const schedulingJobs = async (sensorId: number) =>
  Number((await t.db('job').where({ queue: 'scheduling', sensor_id: sensorId }).count({ n: '*' }).first())!.n);

beforeAll(async () => {
  clock = new SimulatedClock(START);
  t = await startTestServer({}, undefined, { clock });
  f = factories(t.db);
  const account = await f.account();
  token = (await f.user({ accountId: account.id, roles: ['account-admin'] })).token;
  otherToken = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
  const site = await f.asset({ accountId: account.id, type: 'battery' });
  siteId = site.id;
  batterySensor = (await f.sensor({ assetId: site.id, unit: 'kW' })).id;
  socSensor = (await f.sensor({ assetId: site.id, unit: 'kWh', resolutionMinutes: 0 })).id;
  priceSensor = (await f.sensor({ assetId: site.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
  // Two days of hourly prices and the SoC at 06:00, all known at the start.
  await f.beliefs(
    priceSensor,
    START - 6 * HOUR,
    HOUR,
    Array.from({ length: 48 }, (_, i) => 100 + (i % 24) * 10),
    START,
  );
  await f.beliefs(socSensor, START, 0, [12], START);
  const patched = await t.request('PATCH', `/api/v3_0/assets/${site.id}`, {
    token,
    json: {
      flex_model: JSON.stringify({
        'state-of-charge': { sensor: socSensor },
        'soc-min': '0 kWh',
        'soc-max': '20 kWh',
        'power-capacity': '5 kW',
      }),
      flex_context: JSON.stringify({ 'consumption-price': { sensor: priceSensor } }),
    },
  });
  expect(patched.status).toBe(200);
  const made = await t.request('POST', `/api/v3_0/assets/${site.id}/automations`, {
    token,
    json: { name: 'every minute', cron: '* * * * *', timezone: 'UTC', horizon: 'PT12H', schedule_sensor_id: batterySensor },
  });
  expect(made.status).toBe(201);
  automationId = made.body.id;
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

describe('an automation due every minute', () => {
  it('answers the runs of one quarter hour with one schedule job while nothing it reads has changed', async () => {
    await clock.advanceTo(START + 4 * MINUTE);
    const done = await runs();
    expect(done.map((r) => r.dueMs)).toEqual([START + MINUTE, START + 2 * MINUTE, START + 3 * MINUTE]);
    const [first, ...later] = done;
    expect(first.result.schedule_job_reused).toBeUndefined();
    for (const run of later) expect(run.result).toMatchObject({ schedule_job_id: first.result.schedule_job_id, schedule_job_reused: true });
    // The first run resolved in the queue; the later ones, finding its job, were recorded by the
    // clock without a turn in the queue, and say so: finished when made, one attempt.
    expect(first.result.without_queue).toBeUndefined();
    for (const run of later) {
      expect(run.result.without_queue).toBe(true);
      const stored = await t.db('job').where({ id: run.id }).first();
      expect(stored).toMatchObject({ status: 'finished', attempts: 1 });
      const times = [stored.created_at, stored.started_at, stored.finished_at].map(Number);
      expect(times).toEqual([times[0], times[0], times[0]]);
      expect(times[0]).toBeGreaterThanOrEqual(run.dueMs);
    }
    expect(await schedulingJobs(batterySensor)).toBe(1);
    const job = await t.request('GET', `/api/v3_0/jobs/${first.result.schedule_job_id}`, { token });
    expect(job.body.status).toBe('finished');
    // Another account's user does not read the run, nor the job it names.
    expect((await t.request('GET', `/api/v3_0/jobs/${first.result.schedule_job_id}`, { token: otherToken })).status).not.toBe(200);
    expect((await t.request('GET', `/api/v3_0/jobs/${later[0].id}`, { token: otherToken })).status).not.toBe(200);
  });

  it('queues a new job once a price it reads changed, and answers the next runs with that one', async () => {
    // A corrected price for 09:00, believed at 06:03:30, before the run due at 06:04.
    await f.beliefs(priceSensor, START + 3 * HOUR, HOUR, [999], clock.now() - 30_000);
    await clock.advanceTo(START + 7 * MINUTE);
    const done = await runs();
    expect(done.map((r) => r.dueMs)).toEqual([1, 2, 3, 4, 5, 6].map((m) => START + m * MINUTE));
    const before = done[2].result.schedule_job_id;
    const [changed, ...after] = done.slice(3);
    expect(changed.result.schedule_job_id).not.toBe(before);
    expect(changed.result.schedule_job_reused).toBeUndefined();
    for (const run of after)
      expect(run.result).toMatchObject({ schedule_job_id: changed.result.schedule_job_id, schedule_job_reused: true });
    expect(await schedulingJobs(batterySensor)).toBe(2);
    // A run recorded finished without the queue set nothing off there for a simulated clock to
    // wait for: its tick counts no work, yet the run is recorded.
    expect(await t.server.automations.tick(START + 7 * MINUTE)).toBe(0);
    const [recorded] = (await runs()).slice(-1);
    expect(recorded.dueMs).toBe(START + 7 * MINUTE);
    expect(recorded.result).toMatchObject({ schedule_job_id: changed.result.schedule_job_id, without_queue: true });
    // The new job read the corrected price.
    const job = await t.request('GET', `/api/v3_0/jobs/${changed.result.schedule_job_id}`, { token });
    expect(job.body.status).toBe('finished');
  });

  it('queues a new job in the next quarter hour, from the SoC measured then', async () => {
    await f.beliefs(socSensor, START + 15 * MINUTE, 0, [14], START + 15 * MINUTE);
    await clock.advanceTo(START + 17 * MINUTE);
    const done = await runs();
    const ids = new Set(done.map((r) => r.result.schedule_job_id));
    const quarter = done.filter((r) => r.dueMs >= START + 15 * MINUTE);
    expect(quarter.map((r) => r.dueMs)).toEqual([START + 15 * MINUTE, START + 16 * MINUTE]);
    expect(quarter[0].result.schedule_job_reused).toBeUndefined();
    expect(quarter[1].result).toMatchObject({ schedule_job_id: quarter[0].result.schedule_job_id, schedule_job_reused: true });
    expect(ids.size).toBe(3);
    const job = await t.server.services.jobs.get(quarter[0].result.schedule_job_id);
    const spec = (job!.args as { spec: { startMs: number; devices: { socAtStartMwh: number }[] } }).spec;
    expect(spec.startMs).toBe(START + 15 * MINUTE);
    expect(spec.devices[0].socAtStartMwh).toBeCloseTo(0.014, 9);
  });
});

describe('an automation that forecasts every minute', () => {
  let load: number;
  let battery: number;
  let automation: number;
  /** The belief times of the load's forecasts. */
  const forecastBeliefTimes = async () =>
    (
      await t
        .db('timed_belief as b')
        .join('data_source as s', 's.id', 'b.source_id')
        .where({ 'b.sensor_id': load, 's.type': 'forecaster' })
        .distinct('b.belief_time')
        .orderBy('b.belief_time')
    ).map((r: { belief_time: number | string }) => Number(r.belief_time));

  it('forecasts once while no measurement of the sensor came in, and its schedule reads that one forecast', async () => {
    const account = (
      await t.db('sensor').join('generic_asset as a', 'a.id', 'sensor.generic_asset_id').where('sensor.id', socSensor).first('a.account_id')
    ).account_id as number;
    const site = await f.asset({ accountId: account, type: 'battery' });
    load = (await f.sensor({ assetId: site.id, unit: 'kW', attributes: { consumption_is_positive: true } })).id;
    battery = (await f.sensor({ assetId: site.id, unit: 'kW' })).id;
    // Eight weeks of the house's load up to 06:15, known at 06:17.
    const from = START + 15 * MINUTE - 56 * 86_400_000;
    await f.beliefs(load, from, 15 * MINUTE, householdLoad(from, 15 * MINUTE, 56 * 96).values, clock.now());
    const patched = await t.request('PATCH', `/api/v3_0/assets/${site.id}`, {
      token,
      json: {
        flex_model: JSON.stringify({ 'soc-at-start': '10 kWh', 'soc-min': '0 kWh', 'soc-max': '20 kWh', 'power-capacity': '5 kW' }),
        flex_context: JSON.stringify({ 'consumption-price': '20 EUR/MWh' }),
      },
    });
    expect(patched.status).toBe(200);
    const made = await t.request('POST', `/api/v3_0/assets/${site.id}/automations`, {
      token,
      json: {
        name: 'forecast and plan',
        cron: '* * * * *',
        timezone: 'UTC',
        horizon: 'PT6H',
        forecast_sensor_ids: [load],
        schedule_sensor_id: battery,
      },
    });
    expect(made.status).toBe(201);
    automation = made.body.id as number;
    await clock.advanceTo(START + 21 * MINUTE);
    const done = await runs(automation);
    expect(done.map((r) => r.dueMs)).toEqual([18, 19, 20].map((m) => START + m * MINUTE));
    const [first, ...later] = done;
    const forecaster = first.result.forecasts[0].data_source_id;
    expect(first.result.forecasts[0].reused).toBeUndefined();
    for (const run of later) {
      expect(run.result.forecasts).toEqual([{ sensor_id: load, data_source_id: forecaster, method: expect.any(String), reused: true }]);
      expect(run.result).toMatchObject({ schedule_job_id: first.result.schedule_job_id, schedule_job_reused: true });
    }
    expect(await forecastBeliefTimes()).toEqual([START + 18 * MINUTE]);
    expect(await schedulingJobs(battery)).toBe(1);
  });

  it('keeps the forecast while a measurement came in that a forecast from the same origin does not read', async () => {
    // 06:15–06:30 lies after the origin (06:15) of any forecast made before 06:30.
    const posted = await t.request('POST', `/api/v3_0/sensors/${load}/data`, {
      token,
      json: { values: [1.2], start: '2027-03-01T06:15:00Z', duration: 'PT15M', unit: 'kW' },
    });
    expect(posted.status).toBe(200);
    await clock.advanceTo(START + 23 * MINUTE);
    const done = (await runs(automation)).slice(3);
    expect(done.map((r) => r.dueMs)).toEqual([START + 21 * MINUTE, START + 22 * MINUTE]);
    for (const run of done) expect(run.result.forecasts[0].reused).toBe(true);
    expect(await forecastBeliefTimes()).toEqual([START + 18 * MINUTE]);
    // The schedule reads the load in its window as an inflexible device: that changed, so its job is new.
    expect(done[0].result.schedule_job_reused).toBeUndefined();
    expect(done[1].result).toMatchObject({ schedule_job_id: done[0].result.schedule_job_id, schedule_job_reused: true });
    expect(await schedulingJobs(battery)).toBe(2);
  });

  it('forecasts again once a measurement its history reads came in', async () => {
    // At 06:23 the meter corrects 06:00–06:15, the last quarter hour before the origin.
    const posted = await t.request('POST', `/api/v3_0/sensors/${load}/data`, {
      token,
      json: { values: [50], start: '2027-03-01T06:00:00Z', duration: 'PT15M', unit: 'kW' },
    });
    expect(posted.status).toBe(200);
    await clock.advanceTo(START + 24 * MINUTE);
    const [run] = (await runs(automation)).slice(5);
    expect(run.dueMs).toBe(START + 23 * MINUTE);
    expect(run.result.forecasts).toEqual([{ sensor_id: load, data_source_id: expect.any(Number), method: expect.any(String) }]);
  });
});

describe('an automation due every minute, when what it plans from changes between two runs of a quarter hour', () => {
  /** The battery automation's runs due from `fromMinute` on. */
  const runsFrom = async (fromMinute: number) => (await runs()).filter((r) => r.dueMs >= START + fromMinute * MINUTE);
  /** The resolved devices of a schedule job, as stored. */
  const devicesOf = async (jobId: string) =>
    ((await t.server.services.jobs.get(jobId))!.args as { spec: { devices: { socAtStartMwh: number; socMaxMwh: number }[] } }).spec.devices;

  /** The runs due at `minute` and the minute after: the first plans anew, the second finds its job. */
  async function plansAgainAt(minute: number) {
    const jobsBefore = await schedulingJobs(batterySensor);
    await clock.advanceTo(START + (minute + 2) * MINUTE);
    const [changed, next] = await runsFrom(minute);
    expect([changed.dueMs, next.dueMs]).toEqual([START + minute * MINUTE, START + (minute + 1) * MINUTE]);
    expect(changed.result.schedule_job_reused).toBeUndefined();
    expect(next.result).toMatchObject({ schedule_job_id: changed.result.schedule_job_id, schedule_job_reused: true });
    expect(await schedulingJobs(batterySensor)).toBe(jobsBefore + 1);
    return changed.result.schedule_job_id;
  }

  it('plans again from a state of charge measured after the quarter hour began', async () => {
    // The runs of 06:30 and 06:31 share a job: the runs after them take what those resolved.
    await clock.advanceTo(START + 32 * MINUTE);
    const [first, second] = await runsFrom(30);
    expect(second.result).toMatchObject({ schedule_job_id: first.result.schedule_job_id, schedule_job_reused: true });
    // At 06:32 the battery reports 16 kWh at 06:30, the start of the plans of this quarter hour.
    const posted = await t.request('POST', `/api/v3_0/sensors/${socSensor}/data`, {
      token,
      json: { values: [16], start: '2027-03-01T06:30:00Z', duration: 'PT0H', unit: 'kWh' },
    });
    expect(posted.status).toBe(200);
    const job = await plansAgainAt(32);
    expect((await devicesOf(job))[0].socAtStartMwh).toBeCloseTo(0.016, 9);
  });

  it('plans again once the stored flex-model changed', async () => {
    const patched = await t.request('PATCH', `/api/v3_0/assets/${siteId}`, {
      token,
      json: {
        flex_model: JSON.stringify({
          'state-of-charge': { sensor: socSensor },
          'soc-min': '0 kWh',
          'soc-max': '18 kWh',
          'power-capacity': '5 kW',
        }),
      },
    });
    expect(patched.status).toBe(200);
    const job = await plansAgainAt(34);
    expect((await devicesOf(job))[0].socMaxMwh).toBeCloseTo(0.018, 9);
  });

  it('plans again for a recurring SoC target set within the quarter hour', async () => {
    const put = await t.request('PUT', `/api/v3_0/assets/${siteId}/recurring-soc-targets`, {
      token,
      json: { targets: [{ days: ['mon'], time: '12:00', value: '15 kWh' }] },
    });
    expect(put.status).toBe(200);
    await plansAgainAt(36);
    const [run] = await runsFrom(36);
    expect((run.result as { soc_targets?: unknown[] }).soc_targets).toHaveLength(1);
  });

  it('plans again once a price stored earlier with a later belief time becomes known, with no write in between', async () => {
    // Stored at 06:38, believed at 06:39:30: the run due at 06:39 cannot read it, the run due at 06:40 must.
    expect(clock.now()).toBe(START + 38 * MINUTE);
    const jobsBefore = await schedulingJobs(batterySensor);
    await f.beliefs(priceSensor, START + 4 * HOUR, HOUR, [777], START + 39 * MINUTE + 30_000);
    await clock.advanceTo(START + 42 * MINUTE);
    const [at38, at39, at40, at41] = await runsFrom(38);
    expect(at39.result).toMatchObject({ schedule_job_id: at38.result.schedule_job_id, schedule_job_reused: true });
    expect(at40.result.schedule_job_id).not.toBe(at39.result.schedule_job_id);
    expect(at40.result.schedule_job_reused).toBeUndefined();
    expect(at41.result).toMatchObject({ schedule_job_id: at40.result.schedule_job_id, schedule_job_reused: true });
    expect(await schedulingJobs(batterySensor)).toBe(jobsBefore + 1);
    // The tests after this one count the jobs of a few minutes: past the start of the next quarter hour.
    await clock.advanceTo(START + 46 * MINUTE);
  });
});

describe('an automation due every minute whose maker loses their rights between two runs', () => {
  it('is refused at the next run, starting no schedule', async () => {
    const platformAdmin = await f.user({ accountId: (await f.account()).id, roles: ['admin'] });
    // An admin of another account: their rights over the site come from the role alone.
    const maker = await f.user({ accountId: (await f.account()).id, roles: ['admin'] });
    const made = await t.request('POST', `/api/v3_0/assets/${siteId}/automations`, {
      token: maker.token,
      json: { name: 'by an admin', cron: '* * * * *', timezone: 'UTC', horizon: 'PT12H', schedule_sensor_id: batterySensor },
    });
    expect(made.status).toBe(201);
    // Its first runs are due in the minutes after it was made.
    const from = Math.ceil(clock.now() / MINUTE);
    await clock.advanceTo((from + 3) * MINUTE);
    const [first, second] = await runs(made.body.id);
    expect(second.result).toMatchObject({ schedule_job_id: first.result.schedule_job_id, schedule_job_reused: true });
    const demoted = await t.request('PATCH', `/api/v3_0/users/${maker.user.id}`, {
      token: platformAdmin.token,
      json: { flexmeasures_roles: [] },
    });
    expect(demoted.status).toBe(200);
    const jobsBefore = await schedulingJobs(batterySensor);
    await clock.advanceTo((from + 4) * MINUTE);
    const rows = await t.db('job').where({ queue: 'automation' }).select<{ id: string; args: string }[]>('id', 'args');
    const refused = rows.find((r) => {
      const args = JSON.parse(r.args) as { automationId: number; dueMs: number };
      return args.automationId === made.body.id && args.dueMs === (from + 3) * MINUTE;
    })!;
    const run = await t.request('GET', `/api/v3_0/jobs/${refused.id}`, { token: platformAdmin.token });
    expect(run.body).toMatchObject({ status: 'failed', error_kind: 'forbidden' });
    expect(run.body.error).toMatch(/^PermissionDenied: /);
    expect(await schedulingJobs(batterySensor)).toBe(jobsBefore);
  });
});

describe('an automation due every minute whose failures another process recorded', () => {
  it('ends a spell of failures another process opened, and writes no notification while none is open', async () => {
    const { account_id: accountId } = await t.db('generic_asset').where({ id: siteId }).first();
    // Two runs from now on, the later one answered without the queue.
    const minute = Math.ceil(clock.now() / MINUTE) + 1;
    await clock.advanceTo(minute * MINUTE);
    const subject = `automation-failed:${automationId}`;
    // Another server on the same store recorded a failed run of this automation.
    await t
      .db('notification')
      .insert({ account_id: accountId, kind: 'automation-failed', subject, message: 'failed', created_at: clock.now() });
    const { id } = await t.db('notification').where({ account_id: accountId, subject }).first();
    await clock.advanceTo((minute + 1) * MINUTE);
    const dueAt = async (m: number) => (await runs()).find((r) => r.dueMs === m * MINUTE)!;
    expect((await dueAt(minute - 1)).result).toMatchObject({ without_queue: true });
    expect((await dueAt(minute)).result).toMatchObject({ schedule_job_reused: true, without_queue: true });
    expect((await t.db('notification').where({ id }).first()).subject).toBe(`${subject}:ended:${id}`);
    // No spell open: the next run leaves the notifications as they are.
    const before = await t.db('notification').orderBy('id');
    await clock.advanceTo((minute + 2) * MINUTE);
    expect((await dueAt(minute + 1)).result).toMatchObject({ schedule_job_reused: true, without_queue: true });
    expect(await t.db('notification').orderBy('id')).toEqual(before);
  });
});
