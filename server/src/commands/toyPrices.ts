import { DateTime } from 'luxon';
import { TOY_DAY_PRICES, TOY_PRICE_DAYS } from '../domain/toyPrices.ts';
import { forbidden } from '../errors.ts';
import type { Principal } from '../policies/principal.ts';
import { recordBeliefs } from '../store/write/beliefs.ts';
import { getOrCreateSource } from '../store/write/sources.ts';
import type { Writes } from './context.ts';

/**
 * Writes the toy prices from the start of today (in the zone) for `TOY_PRICE_DAYS` days, as
 * known a day before each day, under the source "Flexsite toy prices". Written again on the same
 * day, they replace themselves; a later run adds the days since. The operator's.
 * @returns the window written, epoch ms.
 */
export async function recordToyPrices(
  context: Writes,
  principal: Principal,
  input: { sensorId: number; zone: string; nowMs?: number },
): Promise<{ startMs: number; endMs: number }> {
  // The toy market's sensor belongs to no account: only the operator (or the server's own clock
  // acting for them) writes its prices.
  if (principal.kind !== 'operator') throw forbidden();
  const { db: trx } = context;
  const { sensorId, zone, nowMs = Date.now() } = input;
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
