import type { Knex } from 'knex';
import type { Sensor } from '../../server/src/store/sensors.ts';
import { factories } from './factories.ts';

/*
 * A battery replay worked by hand, shared by the API, CLI and browser tests. A site in
 * Europe/Amsterdam whose house load draws a steady 1 kW, measured for four weeks before and during
 * the two replayed days, Monday 2 and Tuesday 3 March 2026 (local midnight = 23:00Z the day before).
 * Buying costs 0.10 EUR/kWh from 00:00 to 06:00 and 0.30 otherwise; selling earns nothing.
 *
 * Without a battery, a day costs 6 h × 1 kWh × 0.10 + 18 h × 1 kWh × 0.30 = 0.60 + 5.40 = 6.00 EUR.
 * A lossless 10 kWh / 5 kW battery, empty at the start, is filled in the cheap hours (5 kW leaves
 * room for it) and serves 10 of the 18 dear hours' kWh: 10 kWh × (0.30 − 0.10) = 2.00 EUR saved a
 * day, so 4.00 EUR on 12.00 over the two days, 4.00 / 2 × 365 = 730.00 EUR a year, and one full
 * cycle a day (10 kWh in, 10 out, over twice 10 kWh). Emptied by day's end, it starts day two empty.
 * The same prices as a day-ahead series (100 and 300 EUR/MWh, each day's published at noon the day
 * before) give the same figures.
 */
export const HAND_WORKED = {
  start: '2026-03-02',
  end: '2026-03-04',
  days: 2,
  size: { capacity_kwh: 10, power_kw: 5, efficiency: 1 },
  tariff: { kind: 'time-of-use', price: 0.3, periods: [{ from: '00:00', to: '06:00', price: 0.1 }], feed_in_price: 0 },
  costWithout: 12,
  costWith: 8,
  savings: 4,
  savingsPerYear: 730,
  cycles: 2,
};

const HOUR = 3600_000;
const ZONE = 'Europe/Amsterdam';
const DAY1 = Date.parse('2026-03-01T23:00:00Z');
const HISTORY_START = DAY1 - 28 * 24 * HOUR;

/** Below a site of an account: the house load above with its measurements, and the day-ahead price sensor. */
export async function storeHandWorked(db: Knex, accountId: number, siteId: number) {
  const f = factories(db);
  const house = await f.asset({ accountId, type: 'house load', name: 'house', parentId: siteId });
  const load = await f.sensor({
    assetId: house.id,
    unit: 'kW',
    resolutionMinutes: 60,
    timezone: ZONE,
    name: 'house load',
    attributes: { consumption_is_positive: true },
  });
  const days = 28 + HAND_WORKED.days;
  await f.beliefs(load.id, HISTORY_START, HOUR, new Array<number>(days * 24).fill(1), HISTORY_START);
  const priceSensor = await f.sensor({ assetId: siteId, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: ZONE, name: 'day-ahead' });
  // Each local day's 24 prices, known at noon the day before: 100 EUR/MWh 00:00–06:00, 300 after.
  for (let d = 0; d < days; d++) {
    const dayStart = HISTORY_START + d * 24 * HOUR;
    const values = Array.from({ length: 24 }, (_, h) => (h < 6 ? 100 : 300));
    await f.beliefs(priceSensor.id, dayStart, HOUR, values, dayStart - 12 * HOUR);
  }
  return { house, priceSensor };
}

/** The site above, its owner's and another account's users, a day-ahead price sensor of each account. */
export async function handWorkedSite(db: Knex) {
  const f = factories(db);
  const account = await f.account();
  const other = await f.account();
  const owner = await f.user({ accountId: account.id });
  const stranger = await f.user({ accountId: other.id });
  const site = await f.asset({ accountId: account.id, type: 'site', name: 'Home' });
  const { house, priceSensor } = await storeHandWorked(db, account.id, site.id);
  const otherSite = await f.asset({ accountId: other.id, type: 'site', name: 'Elsewhere' });
  const foreignPrice: Sensor = await f.sensor({
    assetId: otherSite.id,
    unit: 'EUR/MWh',
    resolutionMinutes: 60,
    timezone: ZONE,
    name: 'their prices',
  });
  return { owner, stranger, site, house, priceSensor, foreignPrice };
}
