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
    { days: 'weekdays', from: '07:00', to: '23:00', price: 250 },
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
