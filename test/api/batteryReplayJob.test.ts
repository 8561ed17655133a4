import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BatteryReplayResult } from '../../server/src/contracts/batteryReplay.ts';
import { schedulingJob } from '../../server/src/contracts/responses.ts';
import { dialectOf } from '../../server/src/db/dialect.ts';
import type { Sensor } from '../../server/src/store/sensors.ts';
import { HAND_WORKED, handWorkedSite } from '../helpers/replaySite.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.ts';

/*
 * "Would a battery pay?" as a job over the API, on the case worked by hand in
 * test/helpers/replaySite.ts (two days, a steady 1 kW, 0.10 / 0.30 EUR/kWh, a lossless 10 kWh / 5 kW
 * battery: 12.00 EUR without, 8.00 with, 730.00 a year saved, 2 cycles).
 */
const DAYS = HAND_WORKED.days;

let t: TestServer;
let owner: string;
let stranger: string;
let strangerId: number;
let siteId: number;
let houseId: number;
let priceSensor: Sensor;
let foreignPrice: Sensor;

const body = (tariff: object = HAND_WORKED.tariff) => ({
  sizes: [HAND_WORKED.size],
  tariff,
  start: HAND_WORKED.start,
  end: HAND_WORKED.end,
});

beforeAll(async () => {
  t = await startTestServer();
  const made = await handWorkedSite(t.db);
  [owner, stranger] = [made.owner.token, made.stranger.token];
  strangerId = made.stranger.user.id;
  [siteId, houseId] = [made.site.id, made.house.id];
  [priceSensor, foreignPrice] = [made.priceSensor, made.foreignPrice];
}, 60_000);

afterAll(async () => {
  await t?.close();
});

/** Polls the replay until it ends; returns every answer seen. */
async function follow(jobUrl: string): Promise<ApiResponse[]> {
  const seen: ApiResponse[] = [];
  for (let i = 0; i < 2400; i++) {
    const res = await t.request('GET', jobUrl, { token: owner });
    seen.push(res);
    if (res.status !== 200 || res.body.status === 'finished' || res.body.status === 'failed') return seen;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`replay ${jobUrl} did not finish`);
}

const replays = async () => (await t.db('job').where({ queue: 'battery-replay' }).count({ n: '*' }))[0].n;
const audits = async () =>
  (await t.db('audit_log').where({ affected_asset_id: siteId }).where('event', 'like', 'Started battery replay%')).length;

/** The figures worked by hand above, for the result of either tariff. */
function expectHandWorked(result: BatteryReplayResult) {
  expect(result.days).toBe(DAYS);
  expect(result.currency).toBe('EUR');
  const h = HAND_WORKED;
  expect(result.months).toEqual([{ month: '2026-03', hours: 48, cost_without: h.costWithout }]);
  expect(result.cost_without).toBe(h.costWithout);
  expect(result.sizes).toHaveLength(1);
  const [size] = result.sizes;
  expect(size).toMatchObject({
    ...h.size,
    cost_with: h.costWith,
    savings: h.savings,
    savings_per_year: h.savingsPerYear,
    cycles: h.cycles,
  });
  expect(size.months).toEqual([{ month: '2026-03', cost_with: h.costWith, savings: h.savings, cycles: h.cycles }]);
  expect(result.missing_hours).toBe(0);
  expect(result.unforecast_hours).toBe(0);
  expect(result.warnings).toEqual([]);
}

describe('POST /assets/<id>/battery-replay', () => {
  it('replays as a job: progress by day, then the figures worked by hand, with its audit entry', { timeout: 300_000 }, async () => {
    const started = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: owner, json: body() });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ status: 'ACCEPTED', 'job-url': `/api/v3_0/assets/${siteId}/battery-replay/${started.body.job}` });
    expect(await audits()).toBe(1);
    const seen = await follow(started.body['job-url']);
    const last = seen[seen.length - 1];
    expect(last.status).toBe(200);
    expect(last.body.status).toBe('finished');
    // Progress counts the replayed days, never backwards, and ends at all of them.
    const progress = seen.flatMap((r) => (r.body.progress ? [r.body.progress] : []));
    expect(progress.every((p) => p.total === DAYS)).toBe(true);
    expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort());
    expect(last.body.progress).toEqual({ done: DAYS, total: DAYS });
    expectHandWorked(last.body.result);
    // The general job view shows the same job, its progress and its stored arguments.
    const job = await t.request('GET', `/api/v3_0/jobs/${started.body.job}`, { token: owner });
    expect(job.body).toMatchObject({ queue: 'battery-replay', status: 'finished', progress: { done: DAYS, total: DAYS } });
    expect(job.body.args).toMatchObject({ assetId: siteId, start: '2026-03-02', end: '2026-03-04' });
    // As the UI's job pages read a job: its contract accepts a replay's result.
    expect(schedulingJob.safeParse(job.body).success).toBe(true);
  });

  it('replays against a day-ahead price series the same way', { timeout: 300_000 }, async () => {
    const started = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, {
      token: owner,
      json: body({ kind: 'day-ahead', sensor: priceSensor.id, feed_in_price: 0 }),
    });
    expect(started.status).toBe(202);
    const seen = await follow(started.body['job-url']);
    const last = seen[seen.length - 1];
    expect(last.body.status).toBe('finished');
    expectHandWorked(last.body.result);
  });

  it('refuses another account: its site (403), and a price sensor of another account (403); nothing is stored', async () => {
    const [jobs, entries] = [await replays(), await audits()];
    const theirs = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: stranger, json: body() });
    expect(theirs.status).toBe(403);
    const foreign = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, {
      token: owner,
      json: body({ kind: 'day-ahead', sensor: foreignPrice.id }),
    });
    expect(foreign.status).toBe(403);
    expect([await replays(), await audits()]).toEqual([jobs, entries]);
  });

  it("refuses to show a replay to another account, and answers 404 for another asset's job id", async () => {
    const started = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: owner, json: body() });
    const theirs = await t.request('GET', started.body['job-url'], { token: stranger });
    expect(theirs.status).toBe(403);
    // The owner's house load asset: readable, but the job is the site's.
    const wrong = await t.request('GET', `/api/v3_0/assets/${houseId}/battery-replay/${started.body.job}`, { token: owner });
    expect(wrong.status).toBe(404);
    await follow(started.body['job-url']);
  }, 300_000);

  it('checks its principal again when it runs: a job queued for someone who may not read the site fails, replaying nothing', async () => {
    const started = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: owner, json: body() });
    await follow(started.body['job-url']);
    const job = (await t.server.services.jobs.get(started.body.job))!;
    if (job.queue !== 'battery-replay') throw new Error('not a replay');
    // The same replay in the name of the other account's user, as if their rights had changed since it was queued.
    const queued = await t.server.services.jobs.enqueue(
      'battery-replay',
      { ...job.args, principal: { kind: 'user', userId: strangerId } },
      { accountId: job.accountId, sensorId: null, reuseWithinS: 0, force: true },
    );
    await t.server.services.jobs.settled(queued.id, 60_000);
    const failed = (await t.server.services.jobs.get(queued.id))!;
    expect(failed).toMatchObject({ status: 'failed', errorKind: 'forbidden', result: null });
    expect(failed.error).toMatch(/^PermissionDenied: .* may no longer read asset \d+; nothing was replayed\.$/);
  }, 300_000);

  it('answers bad input with 422 and field messages, storing nothing', async () => {
    const [jobs, entries] = [await replays(), await audits()];
    const post = (json: object) => t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: owner, json });
    const five = Array.from({ length: 5 }, () => ({ capacity_kwh: 10, power_kw: 5 }));
    const cases: [object, string[]][] = [
      [{ ...body(), sizes: [] }, ['sizes']],
      [{ ...body(), sizes: five }, ['sizes']],
      [{ ...body(), sizes: [{ capacity_kwh: -1, power_kw: 5, efficiency: 1.5 }] }, ['sizes']],
      [{ ...body(), end: '2026-03-01' }, ['end']],
      [{ ...body(), start: '2025-01-01', end: '2026-03-01' }, ['end']],
      [{ ...body(), start: '2026-02-30' }, ['start']],
      [{ ...body(), end: '2099-01-01' }, ['end']],
      [body({ kind: 'site' }), ['tariff']],
      [body({ kind: 'day-ahead', sensor: 999_999 }), ['tariff']],
      [body({ kind: 'weather' }), ['tariff']],
    ];
    for (const [json, fields] of cases) {
      const res = await post(json);
      expect(res.status, JSON.stringify(json)).toBe(422);
      // A field inside the body is named by its path (`tariff.kind`) or nested under its first part.
      expect(
        Object.keys(res.body.message.json).map((k) => k.split('.')[0]),
        JSON.stringify(res.body),
      ).toEqual(fields);
    }
    expect([await replays(), await audits()]).toEqual([jobs, entries]);
  });

  it('stores the job with its audit entry or neither: when the store refuses the entry, no job is queued or run', async () => {
    const [jobs, entries] = [await replays(), await audits()];
    await refuseReplayAudits(true);
    try {
      const res = await t.request('POST', `/api/v3_0/assets/${siteId}/battery-replay`, { token: owner, json: body() });
      expect(res.status).toBe(500);
    } finally {
      await refuseReplayAudits(false);
    }
    // Nothing was handed to the queue either: once it is idle, still no job.
    await t.server.services.jobs.drained();
    expect([await replays(), await audits()]).toEqual([jobs, entries]);
  });
});

/** Makes the store itself refuse (or no longer refuse) a replay's audit entry, as a failing write would. */
async function refuseReplayAudits(refuse: boolean) {
  const sqlite = dialectOf(t.db).name === 'sqlite';
  if (!refuse) {
    await t.db.raw('DROP TRIGGER refuse_replay_audit' + (sqlite ? '' : ' ON audit_log'));
    if (!sqlite) await t.db.raw('DROP FUNCTION refuse_replay_audit()');
    return;
  }
  if (sqlite) {
    await t.db.raw(
      `CREATE TRIGGER refuse_replay_audit BEFORE INSERT ON audit_log WHEN NEW.event LIKE 'Started battery replay%'
       BEGIN SELECT RAISE(ABORT, 'audit refused'); END`,
    );
    return;
  }
  await t.db.raw(
    `CREATE FUNCTION refuse_replay_audit() RETURNS trigger AS $$
     BEGIN IF NEW.event LIKE 'Started battery replay%' THEN RAISE EXCEPTION 'audit refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
  );
  await t.db.raw('CREATE TRIGGER refuse_replay_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_replay_audit()');
}
