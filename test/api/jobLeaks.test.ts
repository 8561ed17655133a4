import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { storageJobArgs, waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** Issue 20, low findings: what a job tells those who name it. */

let t: TestServer;
let owner: { token: string; sensorId: number };
let outsider: { token: string; sensorId: number };

const START = '2015-01-01T00:00:00Z';

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  const battery = async () => {
    const accountId = (await f.account()).id;
    const asset = await f.asset({ accountId });
    const sensor = await f.sensor({ assetId: asset.id, attributes: { max_soc_in_mwh: 1, capacity_in_mw: 1 } });
    return { token: (await f.user({ accountId })).token, sensorId: sensor.id };
  };
  owner = await battery();
  outsider = await battery();
});
afterAll(() => t.close());

describe('a foreign job uuid on one’s own sensor', () => {
  it("is not known: the other account's schedule window and values stay unseen", async () => {
    const res = await t.request('POST', `/api/v3_0/sensors/${owner.sensorId}/schedules/trigger`, {
      token: owner.token,
      json: { start: START, duration: 'PT6H', 'flex-model': { 'soc-at-start': 0 }, 'flex-context': { 'consumption-price': '50 EUR/MWh' } },
    });
    expect(res.status).toBe(200);
    expect((await waitForSchedule(t, owner.token, owner.sensorId, res.body.schedule)).status).toBe(200);
    const foreign = await t.request('GET', `/api/v3_0/sensors/${outsider.sensorId}/schedules/${res.body.schedule}`, {
      token: outsider.token,
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({
      result: 'Rejected',
      status: 'UNRECOGNIZED_UDI_EVENT',
      message: `The requested UDI event (id = ${res.body.schedule}, type = job) is not known.`,
    });
    expect((await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token: outsider.token })).status).toBe(403);
  });
});

describe('job errors', () => {
  it('carry a typed kind and a message for people, never runtime internals', async () => {
    const res = await t.request('POST', `/api/v3_0/sensors/${owner.sensorId}/schedules/trigger`, {
      token: owner.token,
      json: { start: START, duration: 'PT1H', 'flex-model': { 'soc-at-start': 0 }, 'flex-context': { 'consumption-price': '60 EUR/MWh' } },
    });
    const { jobs } = t.server.services;
    const job = (await jobs.get(res.body.schedule))!;
    // Arguments no trigger can make any more (a window of millions of years), queued by hand.
    const args = storageJobArgs(job);
    args.spec.endMs = args.spec.startMs + 1e17;
    const broken = await jobs.enqueue('scheduling', args, {
      accountId: job.accountId,
      sensorId: owner.sensorId,
      reuseWithinS: 0,
      force: true,
    });
    await jobs.settled(broken.id, 30_000);
    const read = await t.request('GET', `/api/v3_0/jobs/${broken.id}`, { token: owner.token });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      status: 'failed',
      error_kind: 'internal',
      error: 'InternalError: the job failed unexpectedly; the server log has the details.',
    });
    expect(read.body.error).not.toMatch(/RangeError|typed array/);

    // Its owner's job read by an owner who lost the right: forbidden.
    await t
      .db('sensor')
      .where({ id: owner.sensorId })
      .update({ generic_asset_id: (await t.db('sensor').where({ id: outsider.sensorId }).first()).generic_asset_id });
    const refused = await jobs.enqueue('scheduling', storageJobArgs(job), {
      accountId: job.accountId,
      sensorId: owner.sensorId,
      reuseWithinS: 0,
      force: true,
    });
    await jobs.settled(refused.id, 30_000);
    expect((await jobs.get(refused.id))!).toMatchObject({
      status: 'failed',
      errorKind: 'forbidden',
      error: expect.stringMatching(/^PermissionDenied: /),
    });
  });
});

describe('a foreign sensor in a trigger', () => {
  it('is refused with a 403 before any 422 could name its unit', async () => {
    // The outsider's power sensor (MW) as a price: a unit check would say "Cannot convert MW …".
    const res = await t.request('POST', `/api/v3_0/sensors/${owner.sensorId}/schedules/trigger`, {
      token: owner.token,
      json: {
        start: START,
        duration: 'PT1H',
        'flex-model': { 'soc-at-start': 0 },
        'flex-context': { 'consumption-price': { sensor: outsider.sensorId } },
      },
    });
    expect(res.status).toBe(403);
    expect(JSON.stringify(res.body)).not.toMatch(/MW/);
  });
});

describe('a job refused as a trigger would be (issue 28)', () => {
  it('records and answers its field messages in words, in the job and its notification', async () => {
    const f = factories(t.db);
    const accountId = (await f.account()).id;
    const { token } = await f.user({ accountId, roles: ['account-admin'] });
    const asset = await f.asset({ accountId });
    const meter = await f.sensor({ assetId: asset.id, unit: 'MW' });
    // A power sensor as the charging efficiency: the trigger's resolution refuses its unit.
    const battery = await f.sensor({
      assetId: asset.id,
      attributes: { max_soc_in_mwh: 1, capacity_in_mw: 1, 'charging-efficiency': { sensor: meter.id } },
    });
    await t.request('PATCH', `/api/v3_0/assets/${asset.id}`, {
      token,
      json: { flex_model: JSON.stringify({ 'soc-at-start': 0 }), flex_context: JSON.stringify({ 'consumption-price': '50 EUR/MWh' }) },
    });
    const made = await t.request('POST', `/api/v3_0/assets/${asset.id}/automations`, {
      token,
      json: { name: 'words', cron: '0 6 * * *', schedule_sensor_id: battery.id, horizon: 'PT6H' },
    });
    expect(made.status).toBe(201);
    expect(await t.server.automations.tick(Date.parse(made.body.next_run) + 60_000)).toBe(1);
    const job = await t.db('job').where({ queue: 'automation', account_id: accountId }).orderBy('created_at', 'desc').first();
    await t.server.services.jobs.settled(job.id, 30_000);
    const read = await t.request('GET', `/api/v3_0/jobs/${job.id}`, { token });
    expect(read.body).toMatchObject({ status: 'failed', error_kind: 'invalid-input' });
    expect(read.body.error).toBe('ValueError: charging-efficiency: Cannot convert MW to dimensionless');
    const notes = await t.request('GET', '/api/v3_0/notifications', { token });
    const messages = JSON.stringify(notes.body);
    // The notification says it for people: the automation by name, the reason without the exception's name.
    expect(messages).toContain("Automation 'words' failed: charging-efficiency: Cannot convert MW to dimensionless");
    expect(messages).not.toContain('AppError');
    expect(messages).not.toContain('ValueError');
    expect((await t.request('GET', `/api/v3_0/jobs/${job.id}`, { token: outsider.token })).status).toBe(403);
  });
});
