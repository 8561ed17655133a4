import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forbidden, unprocessable } from '../helpers/bodies.ts';
import { factories } from '../helpers/factories.ts';
import { EA, fm1 } from '../helpers/legacy.ts';
import { storageJobArgs, waitForSchedule } from '../helpers/schedules.ts';
import type { SchedulingJobArgs } from '../../server/src/contracts/jobs.ts';
import { schedulerPluginFolder } from '../helpers/schedulerPlugins.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.ts';

/**
 * Issue 10: every sensor a request names is authorized for what the request does with it. The
 * caller schedules their own battery (or posts data) and names a second sensor, the target, in
 * one field at a time; the target belongs to the caller's asset, another asset of the caller's
 * account, another account (private), no account (public), or, for a consultant, a client account.
 */
type Target = 'own' | 'sameAccount' | 'otherPrivate' | 'public' | 'consultancyClient';
type Use = 'read' | 'write';

const targets: Target[] = ['own', 'sameAccount', 'otherPrivate', 'public', 'consultancyClient'];
const allowed: Record<Use, Record<Target, boolean>> = {
  read: { own: true, sameAccount: true, otherPrivate: false, public: true, consultancyClient: true },
  write: { own: true, sameAccount: true, otherPrivate: false, public: false, consultancyClient: false },
};
/**
 * What a job on the caller's asset may use: its account must be able to as well (issue 20). A
 * consultant may read a client's sensor, but the consultancy's asset may not use it: its jobs and
 * their results are its own account's, whose other members may not read the client.
 */
const allowedInJob: Record<Use, Record<Target, boolean>> = { read: { ...allowed.read, consultancyClient: false }, write: allowed.write };

let t: TestServer;
let f: ReturnType<typeof factories>;
let accounts: { A: number; B: number; C: number };
let member: { id: number; token: string };
let consultant: { id: number; token: string };

/** While this file exists, the `held` test scheduler plugin keeps its job running. */
const hold = path.join(os.tmpdir(), `flexsite-scheduler-hold-${process.pid}`);

const START = '2015-01-02T00:00:00+01:00';
const START_MS = Date.parse(START);

beforeAll(async () => {
  t = await startTestServer({ FLEXSITE_LEGACY_API: 'serve', FLEXSITE_SCHEDULER_PLUGINS: schedulerPluginFolder(hold) });
  f = factories(t.db);
  const C = (await f.account()).id;
  accounts = { A: (await f.account({ consultancyAccountId: C })).id, B: (await f.account()).id, C };
  const m = await f.user({ accountId: accounts.A });
  member = { id: m.user.id, token: m.token };
  const c = await f.user({ accountId: accounts.C, roles: ['consultant'] });
  consultant = { id: c.user.id, token: c.token };
});
afterAll(async () => {
  await t.close();
  fs.rmSync(hold, { force: true });
});

/** A battery the caller may schedule, with what a schedule needs in its attributes. */
async function battery(accountId: number, attributes: Record<string, unknown> = {}) {
  const asset = await f.asset({ accountId, attributes });
  const sensor = await f.sensor({
    assetId: asset.id,
    attributes: { max_soc_in_mwh: 1, min_soc_in_mwh: 0, capacity_in_mw: 1 },
  });
  return { asset, sensor };
}

/** One case's world: the caller, their battery, and the target sensor in the wanted place. */
async function world(target: Target, unit: string, batteryAttributes: Record<string, unknown> = {}) {
  const caller = target === 'consultancyClient' ? consultant : member;
  const own = await battery(target === 'consultancyClient' ? accounts.C : accounts.A, batteryAttributes);
  const owner: Record<Target, number | null> = {
    own: accounts.A,
    sameAccount: accounts.A,
    otherPrivate: accounts.B,
    public: null,
    consultancyClient: accounts.A,
  };
  const assetId = target === 'own' ? own.asset.id : (await f.asset({ accountId: owner[target], type: 'battery' })).id;
  const sensor = await f.sensor({ assetId, unit, resolutionMinutes: 15, attributes: { max_soc_in_mwh: 1, capacity_in_mw: 1 } });
  // The target has data, so that a read that got through would show.
  await f.beliefs(sensor.id, START_MS, 15 * 60_000, [1, 1, 1, 1], START_MS - 86_400_000);
  return { caller, own, target: sensor.id };
}
type World = Awaited<ReturnType<typeof world>>;

const beliefCount = async (sensorId: number) => Number((await t.db('timed_belief').where({ sensor_id: sensorId }).count({ n: '*' }))[0].n);
const jobCount = async () => Number((await t.db('job').count({ n: '*' }))[0].n);

const trigger = (w: World, body: Record<string, unknown>) =>
  t.request('POST', `/api/v3_0/sensors/${w.own.sensor.id}/schedules/trigger`, {
    token: w.caller.token,
    json: { start: START, duration: 'PT1H', ...body },
  });

const model = (extra: Record<string, unknown>) => ({
  'flex-model': { 'soc-at-start': 0.5, 'soc-min': 0, 'soc-max': 1, 'power-capacity': '1 MW', ...extra },
  'flex-context': { 'consumption-price': '50 EUR/MWh', 'site-power-capacity': '2 MW' },
});
const context = (extra: Record<string, unknown>) => ({
  'flex-model': { 'soc-at-start': 0.5, 'soc-min': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
  'flex-context': { 'consumption-price': '50 EUR/MWh', 'site-power-capacity': '2 MW', ...extra },
});

interface Field {
  name: string;
  use: Use;
  unit: string;
  /** Attributes of the caller's battery asset (stored flex-configs). */
  batteryAttributes?: (targetId: number) => Record<string, unknown>;
  request: (w: World) => Promise<ApiResponse>;
  /** Read straight by the request rather than named for a job of the caller's asset. */
  direct?: true;
  /** The body of an allowed request; by default the reference's PROCESSED envelope. */
  ok?: (w: World) => unknown;
}

const processedBody = () =>
  expect.objectContaining({ status: 'PROCESSED', message: expect.stringMatching(/^Request has been processed\./) });

const flexModelField = (key: string, use: Use, unit: string, value: (id: number) => unknown): Field => ({
  name: `flex-model ${key}`,
  use,
  unit,
  request: (w) => trigger(w, model({ [key]: value(w.target) })),
});
const flexContextField = (key: string, unit: string, value: (id: number) => unknown): Field => ({
  name: `flex-context ${key}`,
  use: 'read',
  unit,
  request: (w) => trigger(w, context({ [key]: value(w.target) })),
});
const ref = (id: number) => ({ sensor: id });

const fields: Field[] = [
  flexModelField('state-of-charge', 'write', 'MWh', ref),
  flexModelField('consumption', 'write', 'MW', ref),
  flexModelField('production', 'write', 'MW', ref),
  {
    name: 'flex-context aggregate-power',
    use: 'write',
    unit: 'MW',
    request: (w) => trigger(w, context({ 'aggregate-power': ref(w.target) })),
  },
  {
    name: 'flex-context aggregate-consumption',
    use: 'write',
    unit: 'MW',
    request: (w) => trigger(w, context({ 'aggregate-consumption': ref(w.target) })),
  },
  flexModelField('power-capacity', 'read', 'MW', ref),
  flexModelField('consumption-capacity', 'read', 'MW', ref),
  flexModelField('production-capacity', 'read', 'MW', ref),
  flexModelField('charging-efficiency', 'read', '%', ref),
  flexModelField('discharging-efficiency', 'read', '%', ref),
  flexModelField('soc-gain', 'read', 'MW', (id) => [ref(id)]),
  flexModelField('soc-usage', 'read', 'MW', (id) => [ref(id)]),
  flexContextField('consumption-price', 'EUR/MWh', ref),
  flexContextField('production-price', 'EUR/MWh', ref),
  flexContextField('consumption-price-sensor', 'EUR/MWh', (id) => id),
  flexContextField('production-price-sensor', 'EUR/MWh', (id) => id),
  flexContextField('inflexible-device-sensors', 'MW', (id) => [id]),
  flexContextField('site-power-capacity', 'MW', ref),
  flexContextField('site-consumption-capacity', 'MW', ref),
  flexContextField('site-production-capacity', 'MW', ref),
  {
    name: 'stored flex-context consumption-price (asset attribute)',
    use: 'read',
    unit: 'EUR/MWh',
    batteryAttributes: (id) => ({ 'flex-context': { 'consumption-price': ref(id) } }),
    request: (w) => trigger(w, { 'flex-model': model({})['flex-model'], 'flex-context': { 'site-power-capacity': '2 MW' } }),
  },
  {
    name: 'market_id attribute (price fallback)',
    use: 'read',
    unit: 'EUR/MWh',
    batteryAttributes: (id) => ({ market_id: id }),
    request: (w) => trigger(w, { 'flex-model': model({})['flex-model'], 'flex-context': { 'site-power-capacity': '2 MW' } }),
  },
  {
    name: 'asset trigger flex-model state-of-charge',
    use: 'write',
    unit: 'MWh',
    request: (w) =>
      t.request('POST', `/api/v3_0/assets/${w.own.asset.id}/schedules/trigger`, {
        token: w.caller.token,
        json: {
          start: START,
          duration: 'PT1H',
          'flex-model': [{ sensor: w.own.sensor.id, ...model({ 'state-of-charge': ref(w.target) })['flex-model'] }],
          'flex-context': model({})['flex-context'],
        },
      }),
  },
  {
    name: 'asset trigger flex-context consumption-price',
    use: 'read',
    unit: 'EUR/MWh',
    request: (w) =>
      t.request('POST', `/api/v3_0/assets/${w.own.asset.id}/schedules/trigger`, {
        token: w.caller.token,
        json: {
          start: START,
          duration: 'PT1H',
          'flex-model': [{ sensor: w.own.sensor.id, ...model({})['flex-model'] }],
          'flex-context': context({ 'consumption-price': ref(w.target) })['flex-context'],
        },
      }),
  },
  {
    name: 'POST /sensors/data (entity address)',
    use: 'write',
    unit: 'MW',
    request: (w) =>
      t.request('POST', '/api/v3_0/sensors/data', {
        token: w.caller.token,
        json: {
          sensor: `ea1.2021-01.io.flexmeasures:fm1.${w.target}`,
          values: [2, 2],
          start: '2015-01-03T00:00:00+01:00',
          duration: 'PT30M',
          unit: 'MW',
        },
      }),
  },
  {
    name: 'POST /sensors/<id>/data/upload (CSV)',
    use: 'write',
    unit: 'MW',
    request: (w) => {
      const form = new FormData();
      form.append('uploaded-files', new Blob(['2015-01-03T00:00:00+01:00,2\n'], { type: 'text/csv' }), 'data.csv');
      form.append('belief-time-measured-instantly', 'True');
      return t.request('POST', `/api/v3_0/sensors/${w.target}/data/upload`, { token: w.caller.token, form });
    },
  },
  {
    name: 'GET /sensors/<id>/data',
    direct: true,
    use: 'read',
    unit: 'MW',
    request: (w) =>
      t.request('GET', `/api/v3_0/sensors/${w.target}/data`, {
        token: w.caller.token,
        query: { start: START, duration: 'PT1H', unit: 'MW' },
      }),
    ok: () => expect.objectContaining({ values: [1, 1, 1, 1], status: 'PROCESSED' }),
  },
  {
    name: 'GET /sensors/<id>/chart_data/',
    direct: true,
    use: 'read',
    unit: 'MW',
    request: (w) =>
      t.request('GET', `/api/v3_0/sensors/${w.target}/chart_data/`, {
        token: w.caller.token,
        query: { event_starts_after: START, event_ends_before: '2015-01-02T01:00:00+01:00' },
      }),
    // The target's four values show: the read got through.
    ok: (w) => Array(4).fill(expect.objectContaining({ sensor_id: w.target, event_value: 1 })),
  },
  {
    name: 'legacy postUdiEvent (event address)',
    use: 'write',
    unit: 'MW',
    request: (w) =>
      t.request('POST', '/api/v1_3/postUdiEvent', {
        token: w.caller.token,
        json: {
          type: 'PostUdiEventRequest',
          event: `${EA}:${accounts.A}:${w.target}:${++udiEventId}:soc`,
          value: 500,
          unit: 'kWh',
          datetime: START,
        },
      }),
  },
  {
    name: 'legacy postMeterData (connection)',
    use: 'write',
    unit: 'MW',
    request: (w) =>
      t.request('POST', '/api/v1_3/postMeterData', {
        token: w.caller.token,
        json: {
          type: 'PostMeterDataRequest',
          connection: fm1(w.target),
          values: [2, 2],
          start: '2015-01-03T00:00:00+01:00',
          duration: 'PT30M',
          unit: 'MW',
        },
      }),
  },
  {
    name: 'legacy getMeterData (connection)',
    direct: true,
    use: 'read',
    unit: 'MW',
    request: (w) =>
      t.request('GET', '/api/v1_3/getMeterData', {
        token: w.caller.token,
        query: { type: 'GetMeterDataRequest', connection: fm1(w.target), start: START, duration: 'PT1H', unit: 'MW' },
      }),
    // Meter data are observations; the target's values were known a day ahead, so none show.
    ok: () => expect.objectContaining({ type: 'GetMeterDataResponse', status: 'PROCESSED', values: [null, null, null, null] }),
  },
];
let udiEventId = 0;

describe('every sensor a request names is authorized for its use', () => {
  const cases = fields.flatMap((field) => targets.map((target) => ({ field, target })));
  it.each(cases.map((c) => [`${c.field.name} (${c.field.use}) → ${c.target}`, c] as const))('%s', async (_, { field, target }) => {
    const attributes = field.batteryAttributes;
    // The battery's stored attributes name the target, so the target is made first.
    const w = attributes ? await worldWithAttributes(target, field.unit, attributes) : await world(target, field.unit);
    const [beliefsBefore, jobsBefore] = [await beliefCount(w.target), await jobCount()];
    const res = await field.request(w);
    const ok = (field.direct ? allowed : allowedInJob)[field.use][target];
    if (ok) {
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual((field.ok ?? processedBody)(w));
    } else {
      expect(res.status).toBe(403);
      expect(res.body).toEqual(forbidden);
      expect(await jobCount()).toBe(jobsBefore);
    }
    if (!ok || field.use === 'read') expect(await beliefCount(w.target)).toBe(beliefsBefore);
  });
});

/** A world whose battery asset stores attributes naming a target made beforehand in the same place. */
async function worldWithAttributes(target: Target, unit: string, attributes: (id: number) => Record<string, unknown>) {
  const first = await world(target, unit);
  const own = await battery(target === 'consultancyClient' ? accounts.C : accounts.A, attributes(first.target));
  if (target === 'own') {
    // "Own" means on the scheduled battery's asset: move the target there.
    await t.db('sensor').where({ id: first.target }).update({ generic_asset_id: own.asset.id });
  }
  return { ...first, own };
}

describe('the cross-account writes of the issue', () => {
  it('refuses 97 state-of-charge beliefs into another account’s sensor and into a public sensor, and stores them into one’s own', async () => {
    const other = await world('otherPrivate', 'MWh');
    const pub = await world('public', 'EUR/MWh');
    const day = { duration: 'P1D', ...model({}) };
    for (const w of [other, pub]) {
      const jobsBefore = await jobCount();
      const res = await trigger(w, { ...day, 'flex-model': { ...day['flex-model'], 'state-of-charge': ref(w.target) } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual(forbidden);
      expect(await jobCount()).toBe(jobsBefore);
      expect(await beliefCount(w.target)).toBe(4);
    }
    const mine = await world('own', 'MWh');
    const res = await trigger(mine, { ...day, 'flex-model': { ...day['flex-model'], 'state-of-charge': ref(mine.target) } });
    expect(res.status).toBe(200);
    expect((await waitForSchedule(t, mine.caller.token, mine.own.sensor.id, res.body.schedule)).status).toBe(200);
    expect(await beliefCount(mine.target)).toBe(4 + 97);
  });

  it('answers a sensor that does not exist with a 422 naming the field, before any 403', async () => {
    const w = await world('otherPrivate', 'MW');
    const res = await trigger(w, model({ 'state-of-charge': ref(999_999), 'power-capacity': ref(w.target) }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual(unprocessable('json', { 'state-of-charge': ['No sensor found with id 999999.'] }));
  });

  it('refuses an admin writing the schedule of an account’s asset into a public sensor, which the account may not', async () => {
    const admin = await f.user({ accountId: accounts.A, roles: ['admin'] });
    const w = await world('public', 'MWh');
    const res = await trigger({ ...w, caller: { id: admin.user.id, token: admin.token } }, model({ 'state-of-charge': ref(w.target) }));
    expect(res.status, JSON.stringify(res.body)).toBe(403);
    expect(await beliefCount(w.target)).toBe(4);
  });
});

describe('jobs re-check their owner’s rights before they store', () => {
  /**
   * Queues a copy of a finished job's arguments straight into the queue, past the API's checks,
   * as a job queued before the change would be, and waits for it.
   */
  async function runCopy(args: SchedulingJobArgs) {
    const { jobs } = t.server.services;
    const job = await jobs.enqueue('scheduling', args, { accountId: null, sensorId: null, reuseWithinS: 0, force: true });
    await jobs.settled(job.id, 30_000);
    return (await jobs.get(job.id))!;
  }

  it.each([
    [
      'the owner lost the admin role',
      async (userId: number) => t.db('user_role').where({ user_id: userId }).delete(),
      /may no longer write to sensor \d+ \(devices\.0\.(sensorId|socSensorId)\)/,
    ],
    [
      'the owner was deactivated',
      async (userId: number) => t.db('user').where({ id: userId }).update({ active: false }),
      /is no longer active/,
    ],
  ])('fails a job queued before %s, storing nothing', async (_, revoke, reason) => {
    // An admin of another account, whose rights over account A's battery come from the role alone.
    const admin = await f.user({ accountId: accounts.B, roles: ['admin'] });
    const w = await world('own', 'MWh');
    const res = await trigger({ ...w, caller: { id: admin.user.id, token: admin.token } }, model({ 'state-of-charge': ref(w.target) }));
    expect(res.status).toBe(200);
    const first = await waitForSchedule(t, admin.token, w.own.sensor.id, res.body.schedule);
    expect(first.status).toBe(200);
    const job = (await t.server.services.jobs.get(res.body.schedule))!;
    expect(job.args).toMatchObject({ principal: { kind: 'user', userId: admin.user.id } });
    await revoke(admin.user.id);
    const [socBefore, powerBefore] = [await beliefCount(w.target), await beliefCount(w.own.sensor.id)];
    const failed = await runCopy(storageJobArgs(job));
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^PermissionDenied: the user who triggered this job \(id \d+\) .*; nothing was stored\.$/);
    expect(failed.error).toMatch(reason);
    expect(await beliefCount(w.target)).toBe(socBefore);
    expect(await beliefCount(w.own.sensor.id)).toBe(powerBefore);
  });
  /** The newest job, once it has started (the held solver keeps it there), polled for up to 5 s. */
  async function newestJobOnceStarted(): Promise<{ id: string; status: string } | undefined> {
    let job: { id: string; status: string } | undefined;
    for (let i = 0; i < 200 && job?.status !== 'started'; i++) {
      job = await t.db('job').orderBy('created_at', 'desc').first();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return job;
  }
  it('fails a job whose owner loses the right while it is being solved, storing nothing', async () => {
    const admin = await f.user({ accountId: accounts.B, roles: ['admin'] });
    const w = await world('own', 'MWh', { 'custom-scheduler': 'held' });
    fs.writeFileSync(hold, '');
    const jobsBefore = await jobCount();
    const answered = trigger({ ...w, caller: { id: admin.user.id, token: admin.token } }, model({ 'state-of-charge': ref(w.target) }));
    const job = await newestJobOnceStarted();
    expect(await jobCount()).toBe(jobsBefore + 1);
    expect(job?.status).toBe('started');
    // The job passed its check at the start; the right goes while the solver waits.
    await t.db('user_role').where({ user_id: admin.user.id }).delete();
    fs.rmSync(hold);
    expect((await answered).status).toBe(200);
    await t.server.services.jobs.settled(job!.id, 30_000);
    const failed = (await t.server.services.jobs.get(job!.id))!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(
      /^PermissionDenied: .* may no longer write to sensor \d+ \(devices\.0\.(sensorId|socSensorId)\); nothing was stored\.$/,
    );
    expect(await beliefCount(w.target)).toBe(4);
    expect(await beliefCount(w.own.sensor.id)).toBe(0);
  });
  it('fails a job whose SoC sensor moves to another account while it is being solved, storing nothing', async () => {
    // The job reads its sensors once when it starts; the check before it stores reads them again.
    const w = await world('sameAccount', 'MWh', { 'custom-scheduler': 'held' });
    const elsewhere = await f.asset({ accountId: accounts.B, type: 'battery' });
    fs.writeFileSync(hold, '');
    const answered = trigger(w, model({ 'state-of-charge': ref(w.target) }));
    const job = await newestJobOnceStarted();
    expect(job?.status).toBe('started');
    await t.db('sensor').where({ id: w.target }).update({ generic_asset_id: elsewhere.id });
    fs.rmSync(hold);
    expect((await answered).status).toBe(200);
    await t.server.services.jobs.settled(job!.id, 30_000);
    const failed = (await t.server.services.jobs.get(job!.id))!;
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe(
      `PermissionDenied: the user who triggered this job (id ${member.id}) may no longer write to sensor ${w.target} (devices.0.socSensorId); nothing was stored.`,
    );
    expect(await beliefCount(w.target)).toBe(4);
    expect(await beliefCount(w.own.sensor.id)).toBe(0);
  });
});

describe('a job that failed by interruption', () => {
  it('is not handed back to an identical trigger, unlike other failed jobs', async () => {
    const w = await world('own', 'MWh');
    const body = model({ 'state-of-charge': ref(w.target) });
    const first = await trigger(w, body);
    expect(first.status).toBe(200);
    await t.server.services.jobs.settled(first.body.schedule, 30_000);
    await t.db('job').where({ id: first.body.schedule }).update({ status: 'failed', error: 'SchedulerError: solver gave up' });
    expect((await trigger(w, body)).body.schedule).toBe(first.body.schedule);
    await t
      .db('job')
      .where({ id: first.body.schedule })
      .update({ error: 'JobInterrupted: the server stopped while this job ran, twice; trigger it again.', error_kind: 'interrupted' });
    const again = await trigger(w, body);
    expect(again.status).toBe(200);
    expect(again.body.schedule).not.toBe(first.body.schedule);
  });
});
