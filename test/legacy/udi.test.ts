import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EA, from, legacySite, processed, rejected, type LegacySite, type Prefix } from '../helpers/legacy.ts';

let site: LegacySite;
let accountId: number;
let nextEventId = 100;

const SOC_AT = '2015-01-01T00:00:00+00:00';
/** Day-ahead prices for the two days scheduled: cheap at night, dear by day. */
const prices = [...Array(8).fill(30), ...Array(12).fill(60), ...Array(4).fill(40)];

beforeAll(async () => {
  site = await legacySite();
  accountId = site.account.id;
  const start = Date.parse(SOC_AT);
  await site.f.beliefs(site.market.id, start, 3600_000, [...prices, ...prices], start - 86_400_000);
});
afterAll(() => site.t.close());

const event = (sensorId: number, eventId: number, type = 'soc') => `${EA}:${accountId}:${sensorId}:${eventId}:${type}`;

const udiEvent = (sensorId: number, extra: Record<string, unknown> = {}) => ({
  type: 'PostUdiEventRequest',
  event: event(sensorId, ++nextEventId),
  value: 500,
  unit: 'kWh',
  datetime: SOC_AT,
  ...extra,
});

/** Asks for a device message the way devices poll: again while the job is waiting or running. */
async function deviceMessage(prefix: Prefix, message: Record<string, unknown>, token?: string) {
  for (let i = 0; i < 600; i++) {
    const res = await site.message('GET', `/api/${prefix}/getDeviceMessage`, { type: 'GetDeviceMessageRequest', ...message }, token);
    if (!(res.status === 400 && /waiting to be processed|in progress/.test(String(res.body?.message)))) return res;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the scheduling job did not settle');
}

/** The state of charge (MWh) after each step of a 15-minute MW schedule. */
const socPath = (startMwh: number, values: number[]) =>
  values.reduce<number[]>((path, p) => [...path, (path.at(-1) ?? startMwh) + p / 4], []);

describe.each(from('v1_2'))('/api/%s UDI events and device messages', (prefix) => {
  it('postUdiEvent stores the state of charge and getDeviceMessage answers with the schedule', async () => {
    const battery = await site.battery();
    const message = udiEvent(battery.id);
    const res = await site.message('POST', `/api/${prefix}/postUdiEvent`, message);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(processed('PostUdiEventResponse'));
    const attributes = JSON.parse(
      (await site.t.db('sensor').where({ id: battery.id }).first<{ attributes: string }>('attributes')).attributes,
    );
    expect(attributes).toMatchObject({ soc_in_mwh: 0.5, soc_datetime: '2015-01-01T00:00:00Z', soc_udi_event_id: nextEventId });

    const answer = await deviceMessage(prefix, { event: message.event });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      ...processed('GetDeviceMessageResponse'),
      event: message.event,
      start: '2015-01-01T00:00:00Z',
      duration: 'PT6H',
      unit: 'MW',
    });
    // Six hours of cheap night-time power: the battery charges up to its maximum.
    const values: number[] = answer.body.values;
    expect(values).toHaveLength(24);
    for (const v of values) expect(Math.abs(v)).toBeLessThanOrEqual(1 + 1e-6);
    expect(socPath(0.5, values).at(-1)).toBeCloseTo(2, 6);

    const kw = await deviceMessage(prefix, { event: message.event, duration: 'PT1H', unit: 'kW', start: '2015-01-01T00:30:00+00:00' });
    expect(kw.body).toMatchObject({ start: '2015-01-01T00:30:00Z', duration: 'PT1H', unit: 'kW' });
    expect(kw.body.values).toEqual(values.slice(2, 6).map((v) => Math.round(v * 1000 * 1e6) / 1e6));
  });

  if (prefix === 'v1_2') {
    it('knows no soc-with-targets events before version 1.3', async () => {
      const battery = await site.battery();
      const res = await site.message(
        'POST',
        '/api/v1_2/postUdiEvent',
        udiEvent(battery.id, { event: event(battery.id, ++nextEventId, 'soc-with-targets') }),
      );
      expect(res.status).toBe(400);
      expect(res.body).toEqual(rejected('UNRECOGNIZED_UDI_EVENT'));
    });
  } else {
    it('round trip: a UDI event with targets, limits and efficiency, then its device message', async () => {
      const battery = await site.battery();
      const address =
        prefix === 'v2_0'
          ? `ea1.2021-01.io.flexmeasures:fm1.${battery.id}:${++nextEventId}:soc-with-targets`
          : event(battery.id, ++nextEventId, 'soc-with-targets');
      const res = await site.message('POST', `/api/${prefix}/postUdiEvent`, {
        ...udiEvent(battery.id),
        event: address,
        // Empty at midnight, and 1.2 MWh in it at 10:00 when prices are high.
        value: 0,
        soc_min: 0,
        soc_max: 1500,
        roundtrip_efficiency: 1,
        targets: [{ value: 1200, datetime: '2015-01-01T10:00:00+00:00' }],
      });
      expect(res.status).toBe(200);
      const answer = await deviceMessage(prefix, { event: address, duration: 'PT12H' });
      expect(answer.status).toBe(200);
      const path = socPath(0, answer.body.values);
      expect(path).toHaveLength(48);
      expect(path[39]).toBeCloseTo(1.2, 6);
      for (const soc of path) {
        expect(soc).toBeGreaterThanOrEqual(-1e-6);
        expect(soc).toBeLessThanOrEqual(1.5 + 1e-6);
      }
    });
  }

  it('answers 403 for a device of another account', async () => {
    const battery = await site.battery();
    const res = await site.message('POST', `/api/${prefix}/postUdiEvent`, udiEvent(battery.id), site.stranger.token);
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ result: 'Rejected', status: 'INVALID_SENDER' });
  });
});

describe('UDI events: 422 for a device the scheduler cannot plan', () => {
  it.each(['v1_3', 'v2_0'] as Prefix[])('%s: no maximum state of charge known', async (prefix) => {
    const asset = await site.f.asset({ accountId, type: 'battery' });
    const bare = await site.f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 15, attributes: { capacity_in_mw: 1 } });
    const res = await site.message('POST', `/api/${prefix}/postUdiEvent`, udiEvent(bare.id));
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ result: 'Rejected', status: 'UNPROCESSABLE_ENTITY' });
  });
});

describe('error names of postUdiEvent', () => {
  const grid = (minutes: number) => new Date(Date.parse(SOC_AT) + minutes * 60_000).toISOString();
  const cases: [string, (sensorId: number) => Record<string, unknown>][] = [
    ['INCOMPLETE_UDI_EVENT', (id) => ({ event: event(id, ++nextEventId, 'soc-with-targets') })],
    ['INCOMPLETE_UDI_EVENT', () => ({ value: undefined })],
    ['INVALID_MESSAGE_TYPE', () => ({ type: 'PostUdiEvent' })],
    ['INVALID_TIMEZONE', () => ({ datetime: '2015-01-01T00:00:00' })],
    ['INVALID_DATETIME', () => ({ datetime: 'new year' })],
    [
      'INVALID_DATETIME',
      (id) => ({ event: event(id, ++nextEventId, 'soc-with-targets'), targets: [{ value: 1, datetime: grid(60 * 72) }] }),
    ],
    ['INVALID_DOMAIN', (id) => ({ event: `${EA}:${id}:soc` })],
    ['INVALID_DOMAIN', () => ({ event: `${EA}:${accountId}:${site.market.id}:${++nextEventId}:soc` })],
    ['INVALID_UNIT', () => ({ unit: 'MW' })],
    ['PTUS_INCOMPLETE', () => ({ value: 'half full' })],
    ['PTUS_INCOMPLETE', (id) => ({ event: event(id, ++nextEventId, 'soc-with-targets'), targets: [{ value: 1000, datetime: grid(67) }] })],
    ['UNRECOGNIZED_UDI_EVENT', (id) => ({ event: event(id, ++nextEventId, 'temperature') })],
    ['UNRECOGNIZED_UDI_EVENT', () => ({ event: event(999_999, ++nextEventId) })],
  ];

  it.each(cases.flatMap(([name, change]) => (['v1_3', 'v2_0'] as Prefix[]).map((prefix) => [name, prefix, change] as const)))(
    'answers 400 %s (%s)',
    async (name, prefix, change) => {
      const battery = await site.battery();
      const message = JSON.parse(JSON.stringify({ ...udiEvent(battery.id), ...change(battery.id) }));
      const res = await site.message('POST', `/api/${prefix}/postUdiEvent`, message);
      expect(res.status).toBe(400);
      expect(res.body).toEqual(rejected(name));
    },
  );

  it.each(['v1_2', 'v1_3', 'v2_0'] as Prefix[])(
    '%s: OUTDATED_UDI_EVENT for an event id not newer, INVALID_DATETIME for an older SoC',
    async (prefix) => {
      const battery = await site.battery();
      const first = udiEvent(battery.id, { datetime: '2015-01-01T06:00:00+00:00' });
      expect((await site.message('POST', `/api/${prefix}/postUdiEvent`, first)).status).toBe(200);
      const same = await site.message('POST', `/api/${prefix}/postUdiEvent`, { ...first, datetime: '2015-01-01T07:00:00+00:00' });
      expect(same.body).toEqual(rejected('OUTDATED_UDI_EVENT'));
      const older = await site.message(
        'POST',
        `/api/${prefix}/postUdiEvent`,
        udiEvent(battery.id, { datetime: '2015-01-01T05:00:00+00:00' }),
      );
      expect(older.body).toEqual(rejected('INVALID_DATETIME'));
    },
  );
});

describe('error names of getDeviceMessage', () => {
  let battery: number;
  let posted: string;
  beforeAll(async () => {
    battery = (await site.battery()).id;
    const message = udiEvent(battery);
    posted = message.event;
    await site.message('POST', '/api/v2_0/postUdiEvent', message);
  });

  const cases: [string, () => Record<string, unknown>][] = [
    ['INVALID_MESSAGE_TYPE', () => ({ event: posted, type: 'GetDeviceMessage' })],
    ['INVALID_TIMEZONE', () => ({ event: posted, start: '2015-01-01T01:00:00' })],
    ['INVALID_DOMAIN', () => ({ event: `${EA}:${battery}` })],
    ['INVALID_UNIT', () => ({ event: posted, unit: 'EUR/MWh' })],
    ['UNRECOGNIZED_CONNECTION_GROUP', () => ({ event: event(999_999, 1) })],
    ['UNRECOGNIZED_CONNECTION_GROUP', () => ({})],
    ['UNRECOGNIZED_UDI_EVENT', () => ({ event: event(battery, 1) })],
    ['UNRECOGNIZED_UDI_EVENT', () => ({ event: posted.replace(/:soc$/, ':soc-with-targets') })],
  ];

  it.each(cases.flatMap(([name, message]) => (['v1_2', 'v1_3', 'v2_0'] as Prefix[]).map((prefix) => [name, prefix, message] as const)))(
    'answers 400 %s (%s)',
    async (name, prefix, message) => {
      const res = await deviceMessage(prefix, message());
      expect(res.status).toBe(400);
      expect(res.body).toEqual(rejected(name));
    },
  );

  it.each(['v1_2', 'v1_3', 'v2_0'] as Prefix[])(
    '%s: UNKNOWN_SCHEDULE while the job has no schedule (it failed: no prices)',
    async (prefix) => {
      const unpriced = await site.battery({ market: false });
      const message = udiEvent(unpriced.id);
      expect((await site.message('POST', `/api/${prefix}/postUdiEvent`, message)).status).toBe(200);
      const res = await deviceMessage(prefix, { event: message.event });
      expect(res.status).toBe(400);
      expect(res.body).toEqual(rejected('UNKNOWN_SCHEDULE'));
      expect(res.body.message).toMatch(/^No known schedule for this time period\. Scheduling job failed with UnknownPricesException/);
    },
  );
});
