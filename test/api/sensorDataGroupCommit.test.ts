import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

// Uploads arriving together share a transaction (group commit); each still answers for itself.
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

const day = (values: number[], start = '2024-03-01T00:00:00Z') => ({ values, start, duration: 'PT1H', unit: 'MW', horizon: 'PT0H' });
const post = (sensorId: number, body: object, as = token) =>
  t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, { token: as, json: body });
const storedValues = async (sensorId: number) =>
  (await t.db('timed_belief').where({ sensor_id: sensorId }).orderBy(['event_start', 'belief_time']).select('event_value')).map(
    (r: { event_value: number }) => r.event_value,
  );

describe('concurrent uploads', () => {
  it('commit together, and a refused replacement among them fails alone', async () => {
    const sensors = [];
    for (let i = 0; i < 20; i++) sensors.push((await f.sensor({ assetId })).id);
    const replaced = (await f.sensor({ assetId })).id;
    expect((await post(replaced, day([1, 2, 3, 4]))).status).toBe(200);

    const answers = await Promise.all([
      ...sensors.map((id, i) => post(id, day([i, i + 1, i + 2, i + 3]))),
      post(replaced, day([1, 2, 30, 4])),
      // An upload of values already stored is answered as such, next to the new ones.
      post(replaced, day([1, 2, 3, 4])),
    ]);
    for (const a of answers.slice(0, sensors.length))
      expect(a.body).toEqual({ status: 'PROCESSED', message: 'Request has been processed.' });
    expect(answers[sensors.length].status).toBe(403);
    expect(answers[sensors.length].body.status).toBe('INVALID_REPLACEMENT');
    expect(answers[sensors.length + 1].body.status).toBe('ALREADY_RECEIVED_AND_SUCCESSFULLY_PROCESSED');
    for (const [i, id] of sensors.entries()) expect(await storedValues(id)).toEqual([i, i + 1, i + 2, i + 3]);
    expect(await storedValues(replaced)).toEqual([1, 2, 3, 4]);
  });

  it('see the uploads before them in the same transaction, on the same sensor', async () => {
    const sensors = [];
    for (let i = 0; i < 10; i++) sensors.push((await f.sensor({ assetId })).id);
    const twice = (await f.sensor({ assetId })).id;
    const answers = await Promise.all([
      ...sensors.map((id, i) => post(id, day([i, i, i, i]))),
      post(twice, day([7, 8, 9, 10])),
      post(twice, day([7, 8, 9, 10])),
    ]);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    // Whichever came first stored the values; the other found them stored.
    expect(answers.slice(sensors.length).map((a) => a.body.status as string)).toEqual(
      expect.arrayContaining(['PROCESSED', 'ALREADY_RECEIVED_AND_SUCCESSFULLY_PROCESSED']),
    );
    expect(await storedValues(twice)).toEqual([7, 8, 9, 10]);
    for (const [i, id] of sensors.entries()) expect(await storedValues(id)).toEqual([i, i, i, i]);
  });

  it("store a user's first uploads, which create the user's data source, once", async () => {
    const newcomer = await f.user({ accountId });
    const sensors = [(await f.sensor({ assetId })).id, (await f.sensor({ assetId })).id];
    const other = (await f.sensor({ assetId })).id;
    const answers = await Promise.all([
      ...sensors.map((id) => post(id, day([9, 9, 9, 9]), newcomer.token)),
      post(other, day([5, 6, 7, 8])),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    for (const id of sensors) expect(await storedValues(id)).toEqual([9, 9, 9, 9]);
    expect(await storedValues(other)).toEqual([5, 6, 7, 8]);
    expect(await t.db('data_source').where({ user_id: newcomer.user.id }).pluck('id')).toHaveLength(1);
  });
});
