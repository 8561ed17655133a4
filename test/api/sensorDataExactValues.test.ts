import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mostRecentBeliefs } from '../../server/src/store/beliefs.ts';
import { recordBeliefs } from '../../server/src/store/write/beliefs.ts';
import { getOrCreateSource } from '../../server/src/store/write/sources.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
});
afterAll(() => t.close());

const COUNT = 100_000;
const START = '2021-01-01T00:00:00+00:00';
const DURATION = `PT${(COUNT * 15) / 60}H`;

/**
 * 100,000 doubles from random bit patterns (mulberry32, seeded), so every exponent occurs about
 * equally often, subnormals included; non-finite patterns (JSON has no form for them) are
 * replaced by the extremes and the smallest numbers, each of which also occurs at a fixed place.
 */
function randomDoubles(): number[] {
  let state = 34;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = Math.imul(state ^ (state >>> 15), state | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return (x ^ (x >>> 14)) >>> 0;
  };
  const doubles = new Float64Array(COUNT);
  const words = new Uint32Array(doubles.buffer);
  for (let i = 0; i < words.length; i++) words[i] = next();
  const special = [
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    Number.MIN_VALUE,
    -Number.MIN_VALUE,
    2.2250738585072014e-308, // the smallest normal double
    2.225073858507201e-308, // the largest subnormal
    0,
    -0,
    1,
    0.1,
    Number.MAX_SAFE_INTEGER,
  ];
  special.forEach((v, i) => (doubles[i] = v));
  for (let i = 0; i < COUNT; i++) if (!Number.isFinite(doubles[i])) doubles[i] = special[i % special.length];
  return Array.from(doubles);
}

/** The API takes magnitudes up to 1e100: larger ones are scaled by 2^-700, which keeps every bit of their mantissa. */
const inApiRange = (v: number) => (Math.abs(v) > 1e100 ? v * 2 ** -700 : v);

describe('values stored and read back exactly', () => {
  it('returns 100,000 random doubles (subnormals, the smallest) bit for bit as posted; -0 as 0', { timeout: 120_000 }, async () => {
    const accountId = (await f.account()).id;
    const assetId = (await f.asset({ accountId })).id;
    const { token } = await f.user({ accountId });
    const sensor = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15, timezone: 'UTC' });
    const values = randomDoubles().map(inApiRange);
    expect(values.filter((v) => v !== 0 && Math.abs(v) < 2.2250738585072014e-308).length).toBeGreaterThan(20);

    // JSON.stringify writes -0 as 0; the body says -0 as a client may.
    const body = `{"values": [${values.map((v) => (Object.is(v, -0) ? '-0' : JSON.stringify(v))).join(',')}], "start": "${START}", "duration": "${DURATION}", "unit": "kW"}`;
    const posted = await t.request('POST', `/api/v3_0/sensors/${sensor.id}/data`, { token, raw: body });
    expect(posted.status, JSON.stringify(posted.body).slice(0, 500)).toBe(200);

    const read = await t.request<{ values: number[] }>('GET', `/api/v3_0/sensors/${sensor.id}/data`, {
      token,
      query: { start: START, duration: DURATION, unit: 'kW', resolution: 'PT15M' },
    });
    expect(read.status).toBe(200);
    expect(read.body.values.length).toBe(COUNT);
    // The sign of zero is not kept: SQLite writes a REAL without a fraction as an integer, and
    // JSON.stringify writes -0 as 0. Every other value comes back as the same double.
    const differing = values.flatMap((v, i) =>
      Object.is(read.body.values[i], Object.is(v, -0) ? 0 : v) ? [] : [{ i, posted: v, read: read.body.values[i] }],
    );
    expect(differing).toEqual([]);

    const stored: number[] = await t.db('timed_belief').where({ sensor_id: sensor.id }).orderBy('event_start').pluck('event_value');
    expect(stored.length).toBe(COUNT);
    expect(stored.every((v, i) => v === values[i])).toBe(true);

    // Another account's user is refused the sensor's data.
    const other = await f.user({ accountId: (await f.account()).id });
    const refused = await t.request('GET', `/api/v3_0/sensors/${sensor.id}/data`, {
      token: other.token,
      query: { start: START, duration: 'PT1H', unit: 'kW', resolution: 'PT15M' },
    });
    expect(refused.status).toBe(403);
  });

  it('keeps every double in the store, the extremes too, bit for bit', { timeout: 120_000 }, async () => {
    const accountId = (await f.account()).id;
    const assetId = (await f.asset({ accountId })).id;
    const sensor = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15, timezone: 'UTC' });
    const values = randomDoubles();
    const startMs = Date.parse(START);
    await t.db.transaction(async (trx) => {
      const source = await getOrCreateSource(trx, { name: 'exact', type: 'demo script' });
      const rows = values.map((value, i) => ({
        sensorId: sensor.id,
        eventStartMs: startMs + i * 900_000,
        beliefTimeMs: startMs + (i + 1) * 900_000,
        sourceId: source.id,
        value,
      }));
      await recordBeliefs(trx, rows, { allowOverwrite: false });
    });
    const read = await mostRecentBeliefs(t.db, { sensorId: sensor.id, startMs, endMs: startMs + COUNT * 900_000 });
    expect(read.length).toBe(COUNT);
    // Zero compares equal whatever its sign: SQLite keeps none (PostgreSQL does).
    const differing = values.flatMap((v, i) =>
      (v === 0 ? read[i].value === 0 : Object.is(read[i].value, v)) ? [] : [{ i, stored: v, read: read[i].value }],
    );
    expect(differing).toEqual([]);
  });
});
