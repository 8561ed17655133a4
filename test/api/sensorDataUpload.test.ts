import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;
let assetId: number;
let token: string;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  assetId = (await f.asset({ accountId })).id;
  token = (await f.user({ accountId })).token;
});
afterAll(() => t.close());

/** A multipart form as the Python client builds it: files under `uploaded-files`, plus fields. */
function form(files: Record<string, string>, fields: Record<string, string> = {}): FormData {
  const data = new FormData();
  for (const [name, text] of Object.entries(files)) data.append('uploaded-files', new Blob([text], { type: 'text/csv' }), name);
  for (const [k, v] of Object.entries(fields)) data.append(k, v);
  return data;
}

const upload = (sensorId: number, data: FormData, as = token) =>
  t.request('POST', `/api/v3_0/sensors/${sensorId}/data/upload`, { token: as, form: data });

async function stored(sensorId: number) {
  const rows = await t.db('timed_belief').where({ sensor_id: sensorId }).orderBy(['event_start', 'belief_time']);
  return rows.map((r: { event_start: number; belief_time: number; event_value: number }) => ({
    start: new Date(r.event_start).toISOString(),
    beliefTime: r.belief_time,
    value: r.event_value,
  }));
}

describe('POST /sensors/<id>/data/upload', () => {
  it('stores a CSV file (header, naive times in the sensor zone, a gap) known when measured', async () => {
    const s = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15, timezone: 'Europe/Amsterdam' });
    const text = 'event_start,event_value\n2021-06-07 00:00:00,1.5\n2021-06-07 00:15:00,\n2021-06-07 00:30:00,2.5\n';
    const res = await upload(s.id, form({ 'meter.csv': text }, { 'belief-time-measured-instantly': 'True' }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'PROCESSED', message: 'Request has been processed.' });
    const rows = await stored(s.id);
    expect(rows.map((r) => [r.start, r.value])).toEqual([
      ['2021-06-06T22:00:00.000Z', 1.5],
      ['2021-06-06T22:30:00.000Z', 2.5],
    ]);
    // Measured instantly: known at the end of each event.
    expect(rows.map((r) => r.beliefTime - Date.parse(r.start))).toEqual([900_000, 900_000]);

    const again = await upload(s.id, form({ 'meter.csv': text }, { 'belief-time-measured-instantly': 'True' }));
    expect(again.body).toEqual({
      results: 'PROCESSED',
      status: 'ALREADY_RECEIVED_AND_SUCCESSFULLY_PROCESSED',
      message: 'Some of the data has already been received and successfully processed.',
    });
    expect(await stored(s.id)).toHaveLength(2);
  });

  it('takes belief times from a third column, else now; converts the unit; upsamples coarser data', async () => {
    const s = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 });
    const text = '2021-06-07T00:00:00Z,2,2021-06-06T12:00:00Z\n2021-06-07T01:00:00Z,3,2021-06-06T13:00:00Z\n';
    expect((await upload(s.id, form({ 'forecast.csv': text }, { unit: 'MW' }))).status).toBe(200);
    const rows = await stored(s.id);
    expect(rows.map((r) => r.value)).toEqual([2000, 2000, 2000, 2000, 3000, 3000, 3000, 3000]);
    expect(rows.map((r) => new Date(r.beliefTime).toISOString().slice(11, 16))).toEqual([
      '12:00',
      '12:00',
      '12:00',
      '12:00',
      '13:00',
      '13:00',
      '13:00',
      '13:00',
    ]);

    const s2 = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 });
    const before = Date.now();
    expect((await upload(s2.id, form({ 'now.csv': '2021-06-07T00:00:00Z,1\n' }))).status).toBe(200);
    expect((await stored(s2.id))[0].beliefTime).toBeGreaterThanOrEqual(before);
  });

  it('stores several files in one transaction: a bad one stores none', async () => {
    const s = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 });
    const good = '2021-06-07T00:00:00Z,1\n';
    const res = await upload(s.id, form({ 'a.csv': good, 'b.csv': 'when,what\n2021-06-07T00:15:00Z,much\n' }));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: { form: { 'uploaded-files': { 1: ["Invalid content in file: b.csv. Failed with: line 2: 'much' is not a number."] } } },
      result: 'Rejected',
      status: 'UNPROCESSABLE_ENTITY',
    });
    expect(await stored(s.id)).toEqual([]);
  });

  it.each([
    ['no file', () => form({}), { 'uploaded-files': ['Missing data for required field.'] }],
    [
      'a spreadsheet',
      () => form({ 'data.xlsx': 'x' }),
      { 'uploaded-files': { 0: ['Invalid filename: data.xlsx. Only CSV files are accepted.'] } },
    ],
    [
      'a bad flag',
      () => form({ 'a.csv': '2021-06-07T00:00:00Z,1\n' }, { 'belief-time-measured-instantly': 'maybe' }),
      { 'belief-time-measured-instantly': ['Not a valid boolean.'] },
    ],
    [
      'an unknown unit',
      () => form({ 'a.csv': '2021-06-07T00:00:00Z,1\n' }, { unit: 'florps' }),
      { unit: ["Unit 'florps' cannot be handled."] },
    ],
    [
      'data finer than the sensor',
      () => form({ 'a.csv': '2021-06-07T00:00:00Z,1\n2021-06-07T00:05:00Z,2\n' }),
      { 'uploaded-files': { 0: ["Resolution of 0:05:00 is incompatible with the sensor's required resolution of 0:15:00."] } },
    ],
    [
      'an event listed twice',
      () => form({ 'a.csv': '2021-06-07T00:00:00Z,1\n2021-06-07T00:00:00Z,2\n' }),
      { 'uploaded-files': { 0: ['The event at 2021-06-07T00:00:00.000Z is listed twice with the same belief time.'] } },
    ],
  ])('refuses %s with a 422', async (_, data, fields) => {
    const s = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 });
    const res = await upload(s.id, data());
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ message: { form: fields }, result: 'Rejected', status: 'UNPROCESSABLE_ENTITY' });
    expect(await stored(s.id)).toEqual([]);
  });

  it('checks the sensor and the caller', async () => {
    const unknown = await upload(999999, form({ 'a.csv': '2021-06-07T00:00:00Z,1\n' }));
    expect(unknown.status).toBe(422);
    expect(unknown.body.message).toEqual({ path: { id: ['No sensor found with id 999999.'] } });
    const s = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 });
    const other = (await f.user({ accountId: (await f.account()).id })).token;
    expect((await upload(s.id, form({ 'a.csv': '2021-06-07T00:00:00Z,1\n' }), other)).status).toBe(403);
    expect(await stored(s.id)).toEqual([]);
  });
});
