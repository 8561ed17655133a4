import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { SimulatedClock } from '../../server/src/clock.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let accountId: number;
let site: number;
let consumption: number;
let production: number;

/** Summer weekday peak 300, other weekday peak 250, nights 150 (23:00–07:00), else 200; feed-in 70 (EUR/MWh). */
const touTariff = () => ({
  name: 'Home time-of-use',
  timezone: 'Europe/Amsterdam',
  consumption_price_sensor: consumption,
  price: 200,
  periods: [
    { months: [6, 7, 8], days: 'weekdays', from: '07:00', to: '23:00', price: 300 },
    // The rest of the year's months: overlapping periods are refused since issue 32.
    { months: [1, 2, 3, 4, 5, 9, 10, 11, 12], days: 'weekdays', from: '07:00', to: '23:00', price: 250 },
    { from: '23:00', to: '07:00', price: 150 },
  ],
  production_price_sensor: production,
  feed_in_price: 70,
});

const prices = async (sensorId: number, fromIso: string, toIso: string) =>
  (
    await t
      .db('timed_belief')
      .where({ sensor_id: sensorId })
      .andWhere('event_start', '>=', Date.parse(fromIso))
      .andWhere('event_start', '<', Date.parse(toIso))
      .orderBy('event_start')
  ).map((r: { event_value: number }) => r.event_value);

/** A run of `n` equal values. */
const times = (n: number, v: number) => Array<number>(n).fill(v);

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  site = (await f.asset({ accountId, type: 'building' })).id;
  const sensor = (name: string) => f.sensor({ assetId: site, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam', name });
  consumption = (await sensor('consumption price')).id;
  production = (await sensor('feed-in price')).id;
});
afterAll(() => t.close());

describe('tariffs', () => {
  it('refuse bad definitions, sensors of another account and strangers, storing nothing', async () => {
    const post = (body: unknown, as = token) => t.request('POST', `/api/v3_0/assets/${site}/tariffs`, { token: as, json: body });
    const badClock = await post({ ...touTariff(), periods: [{ from: '25:00', to: '07:00', price: 1 }] });
    expect(badClock.status).toBe(422);
    expect(badClock.body.message).toEqual({ json: { periods: { 0: { from: ['Use HH:mm, e.g. 07:00.'] } } } });
    const feedInAlone = await post({ ...touTariff(), production_price_sensor: undefined });
    expect(feedInAlone.status).toBe(422);
    expect(feedInAlone.body.message).toEqual({
      json: { feed_in_price: ['A feed-in price needs a production price sensor, and the other way round.'] },
    });
    const otherAccount = (await f.account()).id;
    const theirs = await f.sensor({ assetId: (await f.asset({ accountId: otherAccount })).id, unit: 'EUR/MWh' });
    expect((await post({ ...touTariff(), consumption_price_sensor: theirs.id })).status).toBe(403);
    const stranger = (await f.user({ accountId: otherAccount, roles: ['account-admin'] })).token;
    expect((await post(touTariff(), stranger)).status).toBe(403);
    expect((await t.request('GET', `/api/v3_0/assets/${site}/tariffs`, { token: stranger })).status).toBe(403);
    // Not even a platform admin may store prices for this asset into another account's sensor.
    const admin = (await f.user({ accountId: otherAccount, roles: ['admin'] })).token;
    expect((await post({ ...touTariff(), consumption_price_sensor: theirs.id }, admin)).status).toBe(403);
    expect(await t.db('tariff')).toEqual([]);
  });

  it('refuse prices no statistic can read and sensors that are no prices, storing nothing (issue 28)', async () => {
    const post = (body: unknown) => t.request('POST', `/api/v3_0/assets/${site}/tariffs`, { token, json: body });
    const huge = await post({ ...touTariff(), price: 1e308 });
    expect(huge.status, JSON.stringify(huge.body)).toBe(422);
    expect(huge.body.message.json.price).toEqual([expect.stringMatching(/at most/)]);
    const hugePeriod = await post({ ...touTariff(), periods: [{ from: '23:00', to: '07:00', price: -1e12 }] });
    expect(hugePeriod.body.message.json).toEqual({ periods: { 0: { price: [expect.stringMatching(/at most/)] } } });
    const power = (await f.sensor({ assetId: site, unit: 'kW', resolutionMinutes: 15 })).id;
    const notPrice = await post({ ...touTariff(), consumption_price_sensor: power });
    expect(notPrice.status).toBe(422);
    expect(notPrice.body.message.json.consumption_price_sensor).toEqual([expect.stringMatching(/price sensor/)]);
    expect(await t.db('tariff')).toEqual([]);
    expect(await t.db('timed_belief').whereIn('sensor_id', [consumption, production, power])).toEqual([]);
  });

  it('write a time-of-use tariff ahead as hourly prices, weekdays, weekends, seasons and feed-in', async () => {
    const res = await t.request('POST', `/api/v3_0/assets/${site}/tariffs`, { token, json: touTariff() });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ asset_id: site, definition: { name: 'Home time-of-use', price: 200 } });
    expect((await t.request('GET', `/api/v3_0/assets/${site}/tariffs`, { token })).body).toEqual([res.body]);

    // Friday 2 July 2027, midnight in Amsterdam: today and the next two days are written.
    const stored = await t.server.tariffs.tick(Date.parse('2027-07-02T00:00:00+02:00'));
    // 3 days × 24 h on each of the two sensors.
    expect(stored).toBe(144);
    // Friday (summer weekday): 00–07 night 150, 07–23 summer peak 300, 23–24 night 150.
    expect(await prices(consumption, '2027-07-02T00:00:00+02:00', '2027-07-03T00:00:00+02:00')).toEqual([
      ...times(7, 150),
      ...times(16, 300),
      150,
    ]);
    // Saturday and Sunday: no peak; daytime takes the base price 200.
    const weekendDay = [...times(7, 150), ...times(16, 200), 150];
    expect(await prices(consumption, '2027-07-03T00:00:00+02:00', '2027-07-05T00:00:00+02:00')).toEqual([...weekendDay, ...weekendDay]);
    expect(await prices(production, '2027-07-02T00:00:00+02:00', '2027-07-05T00:00:00+02:00')).toEqual(times(72, 70));
    const [source] = await t
      .db('timed_belief as b')
      .join('data_source as s', 's.id', 'b.source_id')
      .where('b.sensor_id', consumption)
      .distinct('s.name', 's.type');
    expect(source).toEqual({ name: 'Flexsite tariff', type: 'reporter' });
    // Ticking again within the hour stores nothing: the prices are already believed.
    expect(await t.server.tariffs.tick(Date.parse('2027-07-02T00:30:00+02:00'))).toBe(0);
    // An hour later, the hour that ended is not written again, and the third day gains nothing new yet.
    expect(await t.server.tariffs.tick(Date.parse('2027-07-02T01:30:00+02:00'))).toBe(0);
  });

  it('keep wall-clock hours over the spring DST change and outside the summer season', async () => {
    // Sunday 28 March 2027 has 23 hours in Amsterdam (02:00 → 03:00); Monday 29 March is a non-summer weekday.
    expect(await t.server.tariffs.tick(Date.parse('2027-03-28T00:00:00+01:00'))).toBe(2 * (23 + 24 + 24));
    // Sunday: local hours 0, 1, 3, 4, 5, 6 are night (150), 07–23 base 200, 23 night.
    expect(await prices(consumption, '2027-03-28T00:00:00+01:00', '2027-03-29T00:00:00+02:00')).toEqual([
      ...times(6, 150),
      ...times(16, 200),
      150,
    ]);
    // Monday: 07–23 the weekday peak of the rest of the year, 250.
    expect(await prices(consumption, '2027-03-29T00:00:00+02:00', '2027-03-30T00:00:00+02:00')).toEqual([
      ...times(7, 150),
      ...times(16, 250),
      150,
    ]);
  });
  it('refuse sensors finer than the tariff resolution and tariffs beyond the account’s limit, storing nothing', async () => {
    const own = await startTestServer({ FLEXSITE_TARIFFS_PER_ACCOUNT: '1' });
    try {
      const g = factories(own.db);
      const account = (await g.account()).id;
      const admin = (await g.user({ accountId: account, roles: ['account-admin'] })).token;
      const asset = (await g.asset({ accountId: account, type: 'building' })).id;
      const hourly = (await g.sensor({ assetId: asset, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
      const everyMinute = (await g.sensor({ assetId: asset, unit: 'EUR/MWh', resolutionMinutes: 1 })).id;
      const post = (body: unknown) => own.request('POST', `/api/v3_0/assets/${asset}/tariffs`, { token: admin, json: body });
      const flat = (sensor: number) => ({ name: 'Flat', timezone: 'UTC', consumption_price_sensor: sensor, price: 200 });
      // The default finest resolution is 15 minutes.
      const fine = await post(flat(everyMinute));
      expect(fine.status).toBe(422);
      expect(fine.body.message).toEqual({
        json: {
          consumption_price_sensor: [`A tariff writes to sensors of a resolution of at least 15 minutes; sensor ${everyMinute} is finer.`],
        },
      });
      expect((await post(flat(hourly))).status).toBe(201);
      const second = await post(flat(hourly));
      expect(second.status).toBe(422);
      expect(second.body.message).toEqual({ json: { _schema: [`The account of asset ${asset} has the most tariffs allowed (1).`] } });
      expect(await own.db('tariff')).toHaveLength(1);
    } finally {
      await own.close();
    }
  });
});

describe('a tariff written when stored and when changed', () => {
  it('has prices from the start of today at once, and a change supersedes them for the chart and the next schedule', async () => {
    // Friday 2 July 2027, 14:20 in Amsterdam.
    const clock = new SimulatedClock(Date.parse('2027-07-02T14:20:00+02:00'));
    const own = await startTestServer({}, undefined, { clock });
    try {
      const g = factories(own.db);
      const account = (await g.account()).id;
      const admin = (await g.user({ accountId: account, roles: ['account-admin'] })).token;
      const stranger = (await g.user({ accountId: (await g.account()).id, roles: ['account-admin'] })).token;
      const home = (await g.asset({ accountId: account, type: 'building' })).id;
      const priceSensor = (await g.sensor({ assetId: home, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' })).id;
      const battery = (
        await g.sensor({ assetId: (await g.asset({ accountId: account, type: 'battery' })).id, unit: 'MW', resolutionMinutes: 15 })
      ).id;
      const tariff = (price: number, peak: number) => ({
        name: 'Evening peak',
        timezone: 'Europe/Amsterdam',
        consumption_price_sensor: priceSensor,
        price,
        periods: [{ from: '17:00', to: '21:00', price: peak }],
      });
      const created = await own.request('POST', `/api/v3_0/assets/${home}/tariffs`, { token: admin, json: tariff(100, 300) });
      expect(created.status).toBe(201);

      // Scheduled at once: the prices are there (no "Prices unknown").
      const schedule = async () => {
        const res = await own.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
          token: admin,
          json: {
            start: '2027-07-02T14:30:00+02:00',
            duration: 'PT8H',
            'flex-model': { 'soc-at-start': '0.5 MWh', 'soc-min': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' },
            'flex-context': { 'consumption-price-sensor': priceSensor },
          },
        });
        expect(res.status).toBe(200);
        await own.server.services.jobs.settled(res.body.schedule, 30_000);
        const job = await own.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token: admin });
        expect(job.body).toMatchObject({ status: 'finished', error: null });
        const steps: number[] = job.body.result.consumption_price;
        return { id: res.body.schedule as string, peakRatio: Math.max(...steps) / Math.min(...steps) };
      };
      const first = await schedule();
      expect(first.peakRatio).toBeCloseTo(3, 9);

      // Today's hours already past have prices too; one value per hour on the chart.
      const today = async () =>
        (
          await own.request('GET', `/api/v3_0/sensors/${priceSensor}/chart_data/`, {
            token: admin,
            query: { event_starts_after: '2027-07-02T00:00:00+02:00', event_ends_before: '2027-07-03T00:00:00+02:00' },
          })
        ).body.map((r: { event_value: number }) => r.event_value);
      expect(await today()).toEqual([...times(17, 100), ...times(4, 300), ...times(3, 100)]);

      const tariffId = created.body.id;
      const put = (body: unknown, as = admin, id = tariffId) =>
        own.request('PUT', `/api/v3_0/assets/${home}/tariffs/${id}`, { token: as, json: body });
      expect((await put(tariff(120, 200), stranger)).status).toBe(403);
      expect((await put(tariff(120, 200), admin, tariffId + 1000)).status).toBe(404);
      const bad = await put({ ...tariff(120, 200), price: 'cheap' });
      expect(bad.status).toBe(422);
      expect(Object.keys(bad.body.message.json)).toEqual(['price']);
      expect(await today()).toEqual([...times(17, 100), ...times(4, 300), ...times(3, 100)]);

      // Changed at 15:05: the new prices supersede the old ones for the whole day, past hours included.
      await clock.advanceTo(Date.parse('2027-07-02T15:05:00+02:00'));
      const changed = await put(tariff(120, 200));
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ id: tariffId, definition: { price: 120 } });
      expect(await today()).toEqual([...times(17, 120), ...times(4, 200), ...times(3, 120)]);
      const second = await schedule();
      expect(second.id).not.toBe(first.id);
      expect(second.peakRatio).toBeCloseTo(200 / 120, 9);
    } finally {
      await own.close();
    }
  });
});

describe('a tariff corrected, listed and deleted (issue 32)', () => {
  // Friday 2 July 2027, 13:50 in Amsterdam.
  const clock = new SimulatedClock(Date.parse('2027-07-02T13:50:00+02:00'));
  let own: TestServer;
  let g: ReturnType<typeof factories>;
  let admin: string;
  let stranger: string;
  let home: number;
  let priceSensor: number;
  let battery: number;
  beforeAll(async () => {
    own = await startTestServer({}, undefined, { clock });
    g = factories(own.db);
    const account = (await g.account()).id;
    admin = (await g.user({ accountId: account, roles: ['account-admin'] })).token;
    stranger = (await g.user({ accountId: (await g.account()).id, roles: ['account-admin'] })).token;
    home = (await g.asset({ accountId: account, type: 'building' })).id;
    priceSensor = (await g.sensor({ assetId: home, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' })).id;
    battery = (await g.sensor({ assetId: (await g.asset({ accountId: account, type: 'battery' })).id, unit: 'MW', resolutionMinutes: 15 }))
      .id;
  });
  afterAll(() => own.close());

  /** Entered per kWh: 0.30 all day but for one cheap hour. */
  const tariff = (cheapFrom: string, cheapTo: string, cheap: number) => ({
    name: 'Home',
    timezone: 'Europe/Amsterdam',
    consumption_price_sensor: priceSensor,
    unit: 'EUR/kWh',
    price: 0.3,
    periods: [{ from: cheapFrom, to: cheapTo, price: cheap }],
  });
  const post = (body: unknown, as = admin) => own.request('POST', `/api/v3_0/assets/${home}/tariffs`, { token: as, json: body });
  const today = async () =>
    (
      await own.request('GET', `/api/v3_0/sensors/${priceSensor}/chart_data/`, {
        token: admin,
        query: { event_starts_after: '2027-07-02T00:00:00+02:00', event_ends_before: '2027-07-03T00:00:00+02:00' },
      })
    ).body.map((r: { event_value: number }) => r.event_value);

  /** Charges the empty 1 MWh, 1 MW battery full by 22:00 from 14:00: one hour at 1 MW in the cheapest hour. */
  const schedule = async () => {
    const res = await own.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
      token: admin,
      json: {
        start: '2027-07-02T14:00:00+02:00',
        duration: 'PT8H',
        'flex-model': {
          'soc-at-start': '0 MWh',
          'soc-min': '0 MWh',
          'soc-max': '1 MWh',
          'power-capacity': '1 MW',
          // No discharging: with a cheap and a dear hour either side, the cheapest plan is then one.
          'production-capacity': '0 MW',
          'soc-targets': [{ datetime: '2027-07-02T22:00:00+02:00', value: '1 MWh' }],
        },
        'flex-context': { 'consumption-price-sensor': priceSensor },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await own.server.services.jobs.settled(res.body.schedule, 30_000);
    const job = await own.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token: admin });
    expect(job.body).toMatchObject({ status: 'finished', error: null });
    const power: number[] = job.body.result.devices[0].power_mw;
    // The quarter hours charged at full power, as local clock times.
    const charging = power
      .flatMap((p, i) => (p > 0.999 ? [i] : []))
      .map((i) => `${14 + Math.floor(i / 4)}:${String((i % 4) * 15).padStart(2, '0')}`);
    return { cost: job.body.result.total_cost as number, charging };
  };

  it('refuses empty and overlapping windows, a unit in another currency and a second tariff on one price sensor, storing nothing', async () => {
    const empty = await post(tariff('07:00', '07:00', 0.1));
    expect(empty.status).toBe(422);
    expect(empty.body.message).toEqual({
      json: { periods: { 0: { to: ['Ends when it starts (07:00–07:00) and so covers no time; for the whole day use 00:00–24:00.'] } } },
    });
    const overlapping = await post({
      ...tariff('17:00', '21:00', 0.4),
      periods: [
        { days: 'weekdays', from: '17:00', to: '21:00', price: 0.4 },
        { from: '20:00', to: '07:00', price: 0.2 },
      ],
    });
    expect(overlapping.status).toBe(422);
    expect(overlapping.body.message).toEqual({
      json: { periods: { 1: { from: ['Overlaps period 1 (weekdays, 17:00–21:00): each time of day may belong to one period only.'] } } },
    });
    const dollars = await post({ ...tariff('14:00', '15:00', 0.1), unit: 'USD/kWh' });
    expect(dollars.status).toBe(422);
    expect(dollars.body.message.json).toEqual({
      unit: ['Must be a price in EUR per energy unit (the price sensor’s currency), such as EUR/kWh.'.replace('’', "'")],
    });
    expect(await own.db('tariff')).toEqual([]);
    expect(await own.db('timed_belief').where({ sensor_id: priceSensor })).toEqual([]);

    const first = await post(tariff('14:00', '15:00', 0.1));
    expect(first.status).toBe(201);
    const second = await post(tariff('20:00', '21:00', 0.05));
    expect(second.status).toBe(422);
    expect(second.body.message).toEqual({
      json: {
        consumption_price_sensor: [
          `Sensor ${priceSensor} already gets its prices from tariff 'Home' (${first.body.id}): change or delete that instead.`,
        ],
      },
    });
    expect(await own.db('tariff')).toHaveLength(1);
    // Nor may a day-ahead connector write to it alongside the tariff.
    const connector = await own.request('POST', `/api/v3_0/assets/${home}/price-connectors`, {
      token: admin,
      json: { sensor: priceSensor, bidding_zone: '10YNL----------L' },
    });
    expect(connector.status).toBe(422);
    expect(connector.body.message.json.sensor).toEqual([
      `Sensor ${priceSensor} already gets its prices from tariff 'Home' (${first.body.id}): change or delete that instead.`,
    ]);
    expect(await own.db('price_connector')).toEqual([]);
  });

  it('lists a tariff as entered, writes it in the sensor’s unit, and a correction changes the next schedule and the chart', async () => {
    const [listed] = (await own.request('GET', `/api/v3_0/assets/${home}/tariffs`, { token: admin })).body;
    expect(listed.definition).toEqual({
      ...tariff('14:00', '15:00', 0.1),
      periods: [{ days: 'all', from: '14:00', to: '15:00', price: 0.1 }],
    });
    // 0.30 EUR/kWh = 300 EUR/MWh, 0.10 EUR/kWh = 100 EUR/MWh (14:00–15:00).
    expect(await today()).toEqual([...times(14, 300), 100, ...times(9, 300)]);
    // Charged in 14:00–15:00 at 1 MW: 1 MWh × 100 EUR/MWh = 100 EUR.
    const before = await schedule();
    expect(before.charging).toEqual(['14:00', '14:15', '14:30', '14:45']);
    expect(before.cost).toBeCloseTo(100, 6);

    const put = (body: unknown, as = admin) =>
      own.request('PUT', `/api/v3_0/assets/${home}/tariffs/${listed.id}`, { token: as, json: body });
    expect((await put(tariff('20:00', '21:00', 0.05), stranger)).status).toBe(403);
    expect((await put(tariff('20:00', '20:00', 0.05))).status).toBe(422);
    await clock.advanceTo(Date.parse('2027-07-02T13:55:00+02:00'));
    const corrected = await put(tariff('20:00', '21:00', 0.05));
    expect(corrected.status).toBe(200);
    // One value per hour, the corrected one: 0.05 EUR/kWh = 50 EUR/MWh in 20:00–21:00.
    expect(await today()).toEqual([...times(20, 300), 50, ...times(3, 300)]);
    // Now charged in 20:00–21:00: 1 MWh × 50 EUR/MWh = 50 EUR.
    const after = await schedule();
    expect(after.charging).toEqual(['20:00', '20:15', '20:30', '20:45']);
    expect(after.cost).toBeCloseTo(50, 6);
    // The superseded beliefs stay, older: the store keeps what was believed when.
    const beliefTimes = await own.db('timed_belief').where({ sensor_id: priceSensor }).distinct('belief_time').pluck('belief_time');
    expect(beliefTimes.map(Number).sort()).toEqual([Date.parse('2027-07-02T13:50:00+02:00'), Date.parse('2027-07-02T13:55:00+02:00')]);
  });

  it('deletes a tariff for its own account only, withdrawing its prices from the start of today', async () => {
    const [listed] = (await own.request('GET', `/api/v3_0/assets/${home}/tariffs`, { token: admin })).body;
    const del = (as = admin, id = listed.id) => own.request('DELETE', `/api/v3_0/assets/${home}/tariffs/${id}`, { token: as });
    expect((await del(stranger)).status).toBe(403);
    expect((await del(admin, listed.id + 1000)).status).toBe(404);
    expect(await own.db('tariff')).toHaveLength(1);
    expect((await del()).status).toBe(204);
    expect((await own.request('GET', `/api/v3_0/assets/${home}/tariffs`, { token: admin })).body).toEqual([]);
    expect(await today()).toEqual([]);
    expect(await own.db('timed_belief').where({ sensor_id: priceSensor })).toEqual([]);
    const [audit] = await own.db('audit_log').where({ affected_asset_id: home }).orderBy('id', 'desc').pluck('event');
    // Written today 00:00 (Amsterdam) through the end of the second day after, hourly (3 × 24 = 72), then corrected:
    // a price believed already is not stored again, so 2 changed hours (14:00, 20:00) × 3 days = 6 more; 78.
    expect(audit).toBe(`Deleted tariff 'Home': ${listed.id}; withdrew its 78 prices from 2027-07-02T00:00:00.000+02:00`);
    // The sensor is free again for another tariff.
    expect((await post(tariff('20:00', '21:00', 0.05))).status).toBe(201);
  });
});
