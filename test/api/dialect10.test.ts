import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/db.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** FLEXSITE_API_COMPAT=1.0: where FlexMeasures 1.0 answers differently, and its newer endpoints. */

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let memberToken: string;
let outsiderToken: string;
let accountId: number;
let assetId: number;
let sensorId: number;

const HOUR = 3600_000;
const start = Date.parse('2015-01-02T00:00:00Z');

beforeAll(async () => {
  t = await startTestServer({ FLEXSITE_API_COMPAT: '1.0' });
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  memberToken = (await f.user({ accountId })).token;
  outsiderToken = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
  const asset = await f.asset({ accountId, name: 'battery site' });
  assetId = asset.id;
  sensorId = (await f.sensor({ assetId, name: 'battery power', resolutionMinutes: 60 })).id;
  await f.beliefs(sensorId, start, HOUR, [1, 2, 3, 4], start + 10 * HOUR);
});
afterAll(() => t.close());

const trigger = (json: Record<string, unknown>) =>
  t.request('POST', `/api/v3_0/assets/${assetId}/schedules/trigger`, {
    token,
    json: {
      start: '2015-01-03T00:00:00+00:00',
      duration: 'PT4H',
      'flex-model': [{ sensor: sensorId, 'soc-at-start': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' }],
      'flex-context': { 'consumption-price': '50 EUR/MWh' },
      ...json,
    },
  });

describe('scheduling in 1.0 words', () => {
  it('accepts a trigger with 202 and follows the job on /jobs/<uuid>', async () => {
    const res = await trigger({});
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      status: 'ACCEPTED',
      message: 'Request has been accepted for processing.',
      job: res.body.job,
      'job-url': `/api/v3_0/jobs/${res.body.job}`,
      schedule: res.body.job,
    });
    let job = await t.request('GET', `/api/v3_0/jobs/${res.body.job}`, { token: memberToken });
    for (let i = 0; i < 200 && job.status === 202; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      job = await t.request('GET', `/api/v3_0/jobs/${res.body.job}`, { token: memberToken });
    }
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({
      status: 'FINISHED',
      message: 'Scheduling job has finished.',
      origin: 'scheduling',
      'func-name': 'flexsite.scheduling',
      func_name: 'flexsite.scheduling',
      'exc-info': null,
      result: { unresolved: [], resolved: [] },
    });
    expect(job.body['enqueued-at']).toMatch(/\+00:00$/);

    const forced = await trigger({ 'force-new-job-creation': true });
    expect(forced.body.job).not.toBe(res.body.job);
    const reused = await trigger({});
    expect(reused.body.job).toBe(forced.body.job);

    const jobs = await t.request('GET', `/api/v3_0/assets/${assetId}/jobs`, { token: memberToken });
    expect(jobs.status).toBe(200);
    expect(jobs.body.redis_connection_err).toBeNull();
    expect(jobs.body.jobs.map((j: { job_id: string }) => j.job_id).sort()).toEqual([res.body.job, forced.body.job].sort());
    expect(jobs.body.jobs[0]).toMatchObject({
      queue: 'scheduling',
      asset_or_sensor_type: 'sensor',
      entity: `sensor: battery power (Id: ${sensorId})`,
      err: null,
    });
  });

  it('gives the unmet target and the cost per commitment in the finished job’s result, relaxed by default', async () => {
    // 1 MWh wanted after an hour at 0.5 MW: 500 kWh short. The 0.5 MWh bought then is sold later
    // at the same 50 EUR/MWh (energy 0), but buying it cost 0.5 MWh × 10 EUR/MWh over the 0 kW baseline.
    const res = await trigger({
      'flex-model': [
        {
          sensor: sensorId,
          'soc-at-start': '0 MWh',
          'soc-max': '1 MWh',
          'power-capacity': '0.5 MW',
          'soc-targets': [{ datetime: '2015-01-03T01:00:00+00:00', value: '1 MWh' }],
        },
      ],
      'flex-context': {
        'consumption-price': '50 EUR/MWh',
        commitments: [{ name: 'grid fee', baseline: '0 kW', 'up-price': '10 EUR/MWh' }],
      },
    });
    expect(res.status).toBe(202);
    await t.server.services.jobs.settled(res.body.job, 30_000);
    const job = await t.request('GET', `/api/v3_0/jobs/${res.body.job}`, { token });
    expect(job.status).toBe(200);
    expect(job.body.result.unresolved).toEqual([
      { asset: assetId, sensor: sensorId, 'soc-targets': [{ datetime: '2015-01-03T01:00:00+00:00', violation: '500.0 kWh' }] },
    ]);
    expect(job.body.result.resolved).toEqual([]);
    expect(job.body.result.commitment_costs).toMatchObject({ energy: 0, 'grid fee': 5 });
  });

  it('answers a failed job with 422 and an unknown one with 404', async () => {
    // @ts-expect-error arguments no trigger makes: the job fails, which is all this test needs
    const failed = await t.server.services.jobs.enqueue('scheduling', { nonsense: true }, { accountId, sensorId: null, reuseWithinS: 0 });
    let res = await t.request('GET', `/api/v3_0/jobs/${failed.id}`, { token });
    for (let i = 0; i < 200 && res.status === 202; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      res = await t.request('GET', `/api/v3_0/jobs/${failed.id}`, { token });
    }
    expect(res.status).toBe(422);
    expect(res.body.status).toBe('FAILED');
    expect(res.body.message).toMatch(/^Scheduling job failed with \w+: /);
    expect(res.body.result).toBeNull();
    expect((await t.request('GET', `/api/v3_0/jobs/${failed.id}`, { token: outsiderToken })).status).toBe(403);
    const unknown = await t.request('GET', '/api/v3_0/jobs/no-such-job', { token });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: 'ERROR', message: 'Job no-such-job not found.' });
  });

  it('shows assets with their flex configuration and sensors_to_show', async () => {
    const res = await t.request('GET', `/api/v3_0/assets/${assetId}`, { token });
    expect(res.body).toMatchObject({ flex_context: '{}', flex_model: '{}', sensors_to_show: '[]' });
    const publicOnes = await t.request('GET', '/api/v3_0/assets/public', { token, query: { fields: 'id|name' } });
    expect(publicOnes.status).toBe(200);
    publicOnes.body.forEach((a: Record<string, unknown>) => expect(Object.keys(a).sort()).toEqual(['id', 'name']));
    const listing = await t.request('GET', '/api/v3_0');
    const byName = Object.fromEntries(listing.body.services.map((s: { name: string; description: string }) => [s.name, s.description]));
    expect(byName['GET /sensors/<id>/schedules/<uuid>']).toBe('Get schedule for one device');
    expect(byName['GET /jobs/<uuid>']).toBe('Get the status of a background job');
    const version = await t.request('GET', '/api/');
    expect(version.body.flexmeasures_version).toBe('1.0.0');
    expect(version.headers.get('FlexMeasures-Version')).toBe('1.0.0');
  });
});

describe('annotations', () => {
  const note = { content: 'Maintenance', start: '2015-01-02T08:00:00+01:00', end: '2015-01-02T10:00:00+01:00' };

  it.each([
    ['accounts', () => accountId],
    ['assets', () => assetId],
    ['sensors', () => sensorId],
  ])('are added to %s once: 201, then 200 for the same one', async (kind, id) => {
    const first = await t.request('POST', `/api/v3_0/${kind}/${id()}/annotations`, { token, json: note });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      content: 'Maintenance',
      type: 'label',
      start: '2015-01-02T08:00:00+01:00',
      end: '2015-01-02T10:00:00+01:00',
    });
    const again = await t.request('POST', `/api/v3_0/${kind}/${id()}/annotations`, { token, json: note });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
  });

  it('are refused for another account, for bad bodies, and change nothing then', async () => {
    const before = await snapshot(t.db);
    for (const path of [`accounts/${accountId}`, `assets/${assetId}`, `sensors/${sensorId}`]) {
      const res = await t.request('POST', `/api/v3_0/${path}/annotations`, { token: outsiderToken, json: note });
      expect(res.status).toBe(403);
    }
    const backwards = await t.request('POST', `/api/v3_0/assets/${assetId}/annotations`, { token, json: { ...note, end: note.start } });
    expect(backwards.status).toBe(422);
    expect(backwards.body.message).toEqual({ json: { _schema: ['end must be after start'] } });
    const badType = await t.request('POST', `/api/v3_0/assets/${assetId}/annotations`, { token, json: { ...note, type: 'rumour' } });
    expect(badType.body.message.json.type).toEqual(['Must be one of: alert, holiday, label, feedback, warning, error.']);
    expect(await snapshot(t.db)).toEqual(before);
  });
});

describe('reading a sensor and an asset', () => {
  it('gives sensor stats per source, and refuses another account', async () => {
    const res = await t.request('GET', `/api/v3_0/sensors/${sensorId}/stats`, { token: memberToken });
    expect(res.status).toBe(200);
    // The fixtures' values, and the schedules written above by the scheduler's source.
    const sources = Object.keys(res.body);
    expect(sources).toHaveLength(2);
    const source = sources.find((name) => name.startsWith('test fixtures'))!;
    expect(source).toMatch(/^test fixtures \(ID: \d+\)$/);
    const stats = res.body[source];
    expect(stats).toEqual({
      'First event start': '2015-01-02T00:00:00Z',
      'Last event end': '2015-01-02T04:00:00Z',
      'Last recorded': '2015-01-02T10:00:00Z',
      'Max value': 4,
      'Mean value': 2.5,
      'Min value': 1,
      'Number of values': 4,
      'Sum over values': 10,
    });
    const windowed = await t.request('GET', `/api/v3_0/sensors/${sensorId}/stats`, {
      token,
      query: { event_start_time: '2015-01-02T02:00:00Z', event_end_time: '2015-01-02T03:00:00Z' },
    });
    expect(windowed.body).toEqual({ [source]: expect.objectContaining({ 'Number of values': 1, 'Sum over values': 3 }) });
    expect((await t.request('GET', `/api/v3_0/sensors/${sensorId}/stats`, { token: outsiderToken })).status).toBe(403);
    expect((await t.request('GET', `/api/v3_0/assets/${assetId}/jobs`, { token: outsiderToken })).status).toBe(403);
  });

  it('reads chart data over start and duration', async () => {
    const res = await t.request('GET', `/api/v3_0/assets/${assetId}/chart_data/`, {
      token,
      query: { start: '2015-01-02T01:00:00Z', duration: 'PT2H' },
    });
    expect(res.status).toBe(200);
    expect(res.body.map((r: { event_value: number }) => r.event_value)).toEqual([2, 3]);
  });
});

describe('1.0 spellings of list filters', () => {
  it('read account and asset on sensors and users, and refuse other accounts', async () => {
    const sensors = await t.request('GET', '/api/v3_0/sensors', { token, query: { asset: assetId } });
    expect(sensors.body.map((s: { id: number }) => s.id)).toEqual([sensorId]);
    const users = await t.request('GET', '/api/v3_0/users', { token, query: { account: accountId } });
    expect(users.status).toBe(200);
    expect(users.body.length).toBe(2);
    expect((await t.request('GET', '/api/v3_0/sensors', { token: outsiderToken, query: { asset: assetId } })).status).toBe(403);
    expect((await t.request('GET', '/api/v3_0/users', { token: outsiderToken, query: { account: accountId } })).status).toBe(403);
    expect((await t.request('GET', '/api/v3_0/assets', { token: outsiderToken, query: { account: accountId } })).status).toBe(403);
  });
});
