import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { recordBeliefs } from '../store/write/beliefs.ts';
import { getOrCreateSource } from '../store/write/sources.ts';

/**
 * Toy day-ahead prices (EUR/MWh) for the toy account, so that its battery can be scheduled out
 * of the box: per hour of the day, cheap at night and around noon, dear at the morning and
 * evening peaks — a day shape that gives a battery a reason to shift.
 */
export const TOY_DAY_PRICES: readonly number[] = [
  38, 35, 33, 32, 33, 40, 62, 85, 78, 60, 45, 36, 30, 28, 32, 44, 68, 96, 110, 92, 74, 60, 50, 42,
];

/** Days of prices written: today and the two coming days, in the market's zone. */
export const TOY_PRICE_DAYS = 3;

/**
 * Writes the toy prices from the start of today (in the zone) for `TOY_PRICE_DAYS` days, as
 * known a day before each day, under the source "Flexsite toy prices". Written again on the same
 * day, they replace themselves; a later run adds the days since.
 * @returns the window written, epoch ms.
 */
export async function recordToyPrices(
  trx: Knex.Transaction,
  sensorId: number,
  zone: string,
  nowMs = Date.now(),
): Promise<{ startMs: number; endMs: number }> {
  const source = await getOrCreateSource(trx, { name: 'Flexsite toy prices', type: 'demo script' });
  const today = DateTime.fromMillis(nowMs, { zone }).startOf('day');
  const rows = [];
  for (let d = 0; d < TOY_PRICE_DAYS; d++) {
    const day = today.plus({ days: d });
    // Hour by hour in the zone's clock: a day with a clock change has 23 or 25 hours.
    for (let t = day; t < day.plus({ days: 1 }); t = t.plus({ hours: 1 })) {
      rows.push({
        sensorId,
        eventStartMs: t.toMillis(),
        beliefTimeMs: day.minus({ days: 1 }).toMillis(),
        sourceId: source.id,
        value: TOY_DAY_PRICES[t.hour],
      });
    }
  }
  await recordBeliefs(trx, rows, { allowOverwrite: true });
  return { startMs: today.toMillis(), endMs: today.plus({ days: TOY_PRICE_DAYS }).toMillis() };
}
