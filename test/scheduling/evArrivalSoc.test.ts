/**
 * A car that reports no state of charge (issue 30): it plans from the SoC its flex-model says it
 * arrives with (`soc-at-arrival`, stored by the EV set-up), and the job says so in its warnings
 * and notifies once; without such an assumption it is a 422 naming the fields to give. A
 * battery still needs a measurement or soc-at-start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let stranger: string;
let site: number;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  stranger = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
  site = (await f.asset({ accountId, type: 'building', name: 'Home' })).id;
});
afterAll(() => t.close());

/** A 40 kWh car on a 7.4 kW one-way charger, set up as the wizard does. */
async function car(name: string, extra: Record<string, unknown> = {}) {
  const res = await t.request('POST', `/api/v3_0/assets/${site}/devices`, {
    token,
    json: { kind: 'ev-charger', name, timezone: 'Europe/Amsterdam', power: '7.4 kW', capacity: '40 kWh', ...extra },
  });
  expect(res.status).toBe(201);
  const [power, soc] = res.body.sensors.map((s: { id: number }) => s.id);
  return { power, soc, flexModel: res.body.flex_model };
}

/** Monday 1 November 2027, 18:00 in Amsterdam, for eight hours; 32 kWh wanted by 02:00. */
const trigger = (extraModel: Record<string, unknown> = {}) => ({
  start: '2027-11-01T18:00:00+01:00',
  duration: 'PT8H',
  'flex-model': { 'soc-targets': [{ datetime: '2027-11-02T02:00:00+01:00', value: '32 kWh' }], ...extraModel },
  'flex-context': { 'consumption-price': '100 EUR/MWh' },
});

const post = (sensor: number, json: unknown, as = token) =>
  t.request('POST', `/api/v3_0/sensors/${sensor}/schedules/trigger`, { token: as, json });

const jobCount = async () => Number((await t.db('job').count({ n: '*' }).first())!.n);

describe('a car that reports no state of charge', () => {
  it('plans from its arrival SoC (30 % of 40 kWh), says so in the warnings and notifies once; strangers are refused', async () => {
    const { power, soc, flexModel } = await car('Assumed car', { arrival_soc: '30%' });
    expect(flexModel['soc-at-arrival']).toBe('12 kWh');

    const before = await jobCount();
    expect((await post(power, trigger(), stranger)).status).toBe(403);
    expect(await jobCount()).toBe(before);

    const res = await post(power, trigger());
    expect(res.status).toBe(200);
    await t.server.services.jobs.settled(res.body.schedule, 30_000);
    const job = (await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token })).body;
    expect(job).toMatchObject({ status: 'finished', error: null });
    expect(job.result.devices[0].soc_mwh[0]).toBeCloseTo(0.012, 9);
    // The 32 kWh target at 02:00 (01:00 UTC, the end of the 32nd quarter hour from 17:00 UTC) is met from there.
    expect(job.result.devices[0].soc_mwh[32]).toBeGreaterThanOrEqual(0.032 - 1e-9);
    const assumed = {
      code: 'soc-unknown',
      field: 'soc-at-arrival',
      sensor_id: soc,
      message: `SoC unknown: sensor ${soc} has no measurement within 60 min of the start; assumed 12 kWh, the flex-model's soc-at-arrival.`,
    };
    expect(job.warnings).toEqual([assumed]);

    const notices = async (as: string) =>
      ((await t.request('GET', '/api/v3_0/notifications', { token: as })).body as { job_id: string | null }[]).filter(
        (n) => n.job_id === res.body.schedule,
      );
    const [notice, ...more] = await notices(token);
    expect(more).toEqual([]);
    expect(notice).toMatchObject({ kind: 'schedule-warnings', sensor_id: power });
    // The notification names the car's sensors as people do (its device's name first), not by id.
    expect((notice as unknown as { message: string }).message).toBe(
      "The schedule of Assumed car power finished with warnings. SoC unknown: Assumed car state of charge has no measurement within 60 min of the start; assumed 12 kWh, the flex-model's soc-at-arrival.",
    );
    expect(await notices(stranger)).toEqual([]);
  });

  it('says since when the SoC is unknown when the car reported one long before', async () => {
    const { power, soc } = await car('Car back from a trip', { arrival_soc: '10 kWh' });
    const lastSeen = Date.parse('2027-11-01T08:00:00+01:00');
    await f.beliefs(soc, lastSeen, 0, [90], lastSeen);
    const res = await post(power, trigger());
    expect(res.status).toBe(200);
    await t.server.services.jobs.settled(res.body.schedule, 30_000);
    const job = (await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token })).body;
    expect(job.result.devices[0].soc_mwh[0]).toBeCloseTo(0.01, 9);
    expect(job.warnings).toEqual([
      {
        code: 'soc-unknown',
        field: 'soc-at-arrival',
        sensor_id: soc,
        message: `SoC unknown since 2027-11-01T07:00:00.000Z: sensor ${soc} has no measurement within 60 min of the start; assumed 10 kWh, the flex-model's soc-at-arrival.`,
        periods: [{ start: '2027-11-01T07:00:00.000Z', end: '2027-11-01T17:00:00.000Z' }],
      },
    ]);
  });

  it('says since when only of the readings its state-of-charge reference counts (exclude-source-types)', async () => {
    const { power, soc } = await car('Car with a phone app', { arrival_soc: '10 kWh' });
    // 06:00: a reading of the test fixtures' source (a demo script); 08:00: one the user posted, which the trigger leaves out.
    const counted = Date.parse('2027-11-01T06:00:00+01:00');
    await f.beliefs(soc, counted, 0, [70], counted);
    const posted = await t.request('POST', `/api/v3_0/sensors/${soc}/data`, {
      token,
      json: { values: [90], start: '2027-11-01T08:00:00+01:00', duration: 'PT0H', horizon: 'PT0H', unit: '%' },
    });
    expect(posted.status).toBe(200);
    const res = await post(power, trigger({ 'state-of-charge': { sensor: soc, 'exclude-source-types': ['user'] } }));
    expect(res.status).toBe(200);
    await t.server.services.jobs.settled(res.body.schedule, 30_000);
    const job = (await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token })).body;
    expect(job.warnings).toEqual([
      {
        code: 'soc-unknown',
        field: 'soc-at-arrival',
        sensor_id: soc,
        message: `SoC unknown since 2027-11-01T05:00:00.000Z: sensor ${soc} has no measurement within 60 min of the start; assumed 10 kWh, the flex-model's soc-at-arrival.`,
        periods: [{ start: '2027-11-01T05:00:00.000Z', end: '2027-11-01T17:00:00.000Z' }],
      },
    ]);
  });

  it('is a 422 naming soc-at-start and soc-at-arrival when nothing states an assumption, queueing nothing', async () => {
    const { power, soc } = await car('Unknown car');
    const before = await jobCount();
    const res = await post(power, trigger());
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual({
      'state-of-charge': [
        `No recent state-of-charge value found for sensor ${soc} within 1:00:00 of schedule start 2027-11-01T18:00:00+01:00. Give soc-at-start, or the SoC the car is assumed to arrive with as soc-at-arrival.`,
      ],
    });
    expect(await jobCount()).toBe(before);
    // Given in the trigger instead, the assumption plans.
    expect((await post(power, trigger({ 'soc-at-arrival': '20 kWh' }))).status).toBe(200);
  });

  it('is no assumption a battery may plan from, nor one beyond the capacity', async () => {
    const battery = await t.request('POST', `/api/v3_0/assets/${site}/devices`, {
      token,
      json: { kind: 'battery', name: 'Home battery', power: '5 kW', capacity: '10 kWh' },
    });
    const power = battery.body.sensors[0].id;
    const res = await post(power, { ...trigger({ 'soc-at-arrival': '5 kWh' }), 'flex-model': { 'soc-at-arrival': '5 kWh' } });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual({
      'soc-at-arrival': ['Only an EV charger plans from an assumed arrival SoC; a battery needs a measurement or soc-at-start.'],
    });
    const { power: evPower } = await car('Oversized assumption');
    const over = await post(evPower, trigger({ 'soc-at-arrival': '41 kWh' }));
    expect(over.status).toBe(422);
    expect(over.body.message.json).toEqual({ 'soc-at-arrival': ['Must lie between 0 and soc-max.'] });
    const wizard = await t.request('POST', `/api/v3_0/assets/${site}/devices`, {
      token,
      json: { kind: 'ev-charger', name: 'Bad car', power: '7.4 kW', capacity: '40 kWh', arrival_soc: '130%' },
    });
    expect(wizard.status).toBe(422);
    expect(wizard.body.message.json).toEqual({ arrival_soc: ['Must be at least 0 % and at most 100 %.'] });
  });
});
