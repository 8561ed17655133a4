import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { householdLoad } from '../../bench/_forecastSeries.ts';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let loadSensor: number;
let otherToken: string;
let otherPrivate: number;

const STEP = 900_000;
const DAYS = 42;
const HISTORY_START = Date.parse('2026-01-05T00:00:00Z');
const ORIGIN = HISTORY_START + DAYS * 86_400_000;

async function waitForForecast(sensorId: number, jobId: string): Promise<ApiResponse> {
  for (let i = 0; i < 200; i++) {
    const res = await t.request('GET', `/api/v3_0/sensors/${sensorId}/forecasts/${jobId}`, { token });
    if (res.status !== 202) return res;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the forecast did not finish');
}

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const building = await f.asset({ accountId, type: 'building' });
  loadSensor = (
    await f.sensor({
      assetId: building.id,
      unit: 'kW',
      resolutionMinutes: 15,
      timezone: 'Europe/Amsterdam',
      attributes: { consumption_is_positive: true },
    })
  ).id;
  // Six weeks of measurements, each known when the history ends (horizon ≤ 0).
  await f.beliefs(loadSensor, HISTORY_START, STEP, householdLoad(HISTORY_START, STEP, DAYS * 96).values, ORIGIN);

  const other = await f.account();
  otherToken = (await f.user({ accountId: other.id, roles: ['account-admin'] })).token;
  const otherAsset = await f.asset({ accountId: other.id, type: 'building' });
  otherPrivate = (await f.sensor({ assetId: otherAsset.id, unit: 'kW' })).id;
});
afterAll(() => t.close());

describe('forecasts', () => {
  let jobId: string;

  it('queues a forecasting job and answers as FlexMeasures 1.0 does', async () => {
    const res = await t.request('POST', `/api/v3_0/sensors/${loadSensor}/forecasts/trigger`, {
      token,
      json: { start: new Date(ORIGIN).toISOString(), duration: 'P1D', prior: new Date(ORIGIN).toISOString() },
    });
    expect(res.status).toBe(202);
    jobId = res.body.job;
    expect(res.body).toEqual({
      job: expect.stringMatching(/^[0-9a-f-]{36}$/),
      forecast: jobId,
      status: 'ACCEPTED',
      message: 'Forecasting job has been queued.',
      'job-url': `/api/v3_0/jobs/${jobId}`,
      'results-url': `/api/v3_0/sensors/${loadSensor}/forecasts/${jobId}`,
    });
  });

  it('serves the forecast values once done, and stores them as ex-ante beliefs of a forecaster source', async () => {
    const res = await waitForForecast(loadSensor, jobId);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ start: '2026-02-16T01:00:00+01:00', duration: 'PT24H', unit: 'kW', values: expect.any(Array) });
    expect(res.body.values).toHaveLength(96);
    expect(Math.min(...res.body.values)).toBeGreaterThanOrEqual(0);

    const stored = await t
      .db('timed_belief as b')
      .join('data_source as s', 's.id', 'b.source_id')
      .where('b.sensor_id', loadSensor)
      .where('s.type', 'forecaster')
      .select('b.event_start', 'b.belief_time', 's.model', 's.version');
    expect(stored).toHaveLength(96);
    // Known when the forecast was made, before every event it covers.
    expect(new Set(stored.map((r) => Number(r.belief_time)))).toEqual(new Set([ORIGIN]));
    expect(Math.min(...stored.map((r) => Number(r.event_start)))).toBe(ORIGIN);
    expect(stored[0].model).toBe('blend');
    expect(stored[0].version).toBe('2');
  });

  it('records the backtest that chose the method, in the job and for the sensor', async () => {
    const job = await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token });
    expect(job.body.status).toBe('finished');
    expect(job.body.result.method).toBe('blend');
    const res = await t.request('GET', `/api/v3_0/sensors/${loadSensor}/forecasts/backtest`, { token });
    expect(res.status).toBe(200);
    expect(res.body.method).toBe('blend');
    expect(res.body.backtest.baseline).toMatch(/^seasonal-naive/);
    expect(res.body.backtest.skill).toBeGreaterThan(0.1);
    expect(res.body.backtest.perHorizon[0]).toMatchObject({ fromH: 0, toH: 6 });
  });

  it('feeds a schedule: the forecast as inflexible load leaves the battery less room under the site limit', async () => {
    const site = await f.asset({ accountId, type: 'battery' });
    const battery = (await f.sensor({ assetId: site.id, unit: 'kW', resolutionMinutes: 15, timezone: 'Europe/Amsterdam' })).id;
    const start = new Date(ORIGIN).toISOString();
    const flexModel = {
      'soc-at-start': 0,
      'soc-unit': 'kWh',
      'soc-min': 0,
      'soc-max': 30,
      'power-capacity': '2 kW',
      'soc-targets': [{ datetime: new Date(ORIGIN + 86_400_000).toISOString(), value: 30 }],
    };
    const schedule = async (context: Record<string, unknown>) => {
      const res = await t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
        token,
        json: {
          start,
          duration: 'P1D',
          'flex-model': flexModel,
          'flex-context': { 'consumption-price': '100 EUR/MWh', 'site-power-capacity': '2.2 kW', ...context },
        },
      });
      expect(res.status).toBe(200);
      return (await waitForSchedule(t, token, battery, res.body.schedule, 'P1D')).body.values as number[];
    };
    const alone = await schedule({});
    const withLoad = await schedule({ 'inflexible-device-sensors': [loadSensor] });
    expect(withLoad).not.toEqual(alone);
    // Where the forecast load peaks, the battery charges at most what the site limit leaves.
    const forecast = (await waitForForecast(loadSensor, jobId)).body.values as number[];
    withLoad.forEach((p, i) => expect(p + forecast[i]).toBeLessThanOrEqual(2.2 + 1e-6));

    // FlexMeasures 1.0's source filter on a sensor reference: the forecaster's beliefs only, or
    // only those of the measurements' source (none in the window, so no load).
    const only = (types: unknown) => ({ 'inflexible-consumption': [{ sensor: loadSensor, 'source-types': types }] });
    expect(await schedule(only(['forecaster']))).toEqual(withLoad);
    expect(await schedule(only(['demo script']))).toEqual(alone);
    const empty = await t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
      token,
      json: { start, duration: 'P1D', 'flex-model': flexModel, 'flex-context': only([]) },
    });
    expect(empty.status).toBe(422);
    expect(JSON.stringify(empty.body.message)).toContain('source-types');
  });

  it('refuses what the caller may not use, and bad windows, storing nothing', async () => {
    const before = await t.db('job').where({ queue: 'forecasting' }).count({ n: '*' }).first();
    const foreign = await t.request('POST', `/api/v3_0/sensors/${loadSensor}/forecasts/trigger`, { token: otherToken, json: {} });
    expect(foreign.status).toBe(403);
    expect(foreign.body.status).toBe('INVALID_SENDER');
    const regressor = await t.request('POST', `/api/v3_0/sensors/${loadSensor}/forecasts/trigger`, {
      token,
      json: { regressors: [otherPrivate] },
    });
    expect(regressor.status).toBe(403);
    const unknown = await t.request('POST', `/api/v3_0/sensors/${loadSensor}/forecasts/trigger`, {
      token,
      json: { config: { regressors: [999999] } },
    });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toEqual({ json: { regressors: { '0': ['No sensor found with id 999999.'] } } });
    const backwards = await t.request('POST', `/api/v3_0/sensors/${loadSensor}/forecasts/trigger`, {
      token,
      json: { start: '2026-02-16T00:00:00+01:00', end: '2026-02-15T00:00:00+01:00' },
    });
    expect(backwards.status).toBe(422);
    expect(backwards.body.message).toEqual({ json: { end: ['The forecast window must end after it starts.'] } });
    const extra = await t.request('POST', `/api/v3_0/sensors/${loadSensor}/forecasts/trigger`, { token, json: { colour: 'blue' } });
    expect(extra.status).toBe(422);
    expect(await t.db('job').where({ queue: 'forecasting' }).count({ n: '*' }).first()).toEqual(before);

    expect((await t.request('GET', `/api/v3_0/sensors/${loadSensor}/forecasts/${jobId}`, { token: otherToken })).status).toBe(403);
    // Another account's job on one's own sensor answers as an unknown job, naming nothing of it (issue 28).
    const otherJob = await t.request('GET', `/api/v3_0/sensors/${otherPrivate}/forecasts/${jobId}`, { token: otherToken });
    const unknownJob = await t.request('GET', `/api/v3_0/sensors/${otherPrivate}/forecasts/no-such-job`, { token: otherToken });
    expect(otherJob.status).toBe(unknownJob.status);
    expect(otherJob.body).toEqual({ ...unknownJob.body, message: `Job ${jobId} not found.` });
    expect(otherJob.body.message).not.toMatch(/sensor/i);
  });
});
