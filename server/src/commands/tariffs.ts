import type { Knex } from 'knex';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { TariffDefinition } from '../contracts/tariffs.ts';
import { DateTime } from 'luxon';
import { notFound } from '../errors.ts';
import { checkTariffValues } from '../scheduling/storedValues.ts';
import type { Asset } from '../store/assets.ts';
import { actorOf, recordAudit } from '../store/auditLog.ts';
import { recordBeliefs, type BeliefInput } from '../store/beliefs.ts';
import { getSensor } from '../store/sensors.ts';
import { getOrCreateSource, type SourceProps } from '../store/sources.ts';
import * as tariffs from '../store/tariffs.ts';
import type { User } from '../store/users.ts';
import { checkTariffLimits } from './tariffLimits.ts';
import { tariffPriceAt } from './tariffPrice.ts';

/**
 * Tariffs, stored and changed with their prices: a schedule triggered right after finds them,
 * from the start of today (the tariff's zone) through the planning horizon, and the hourly tick
 * only keeps them ahead. The caller has authorized the asset and the price sensors.
 */

/** What the tariff commands use: the write's transaction, the operator's limits, the clock prices are believed at. */
export interface TariffDeps {
  trx: Knex.Transaction;
  config: Pick<Config, 'limits' | 'planningHorizonMs'>;
  clock: Clock;
}

/** How far ahead prices are written at least: the rest of today and the next two days, in the tariff's zone. */
const AHEAD_DAYS = 3;

/** Price beliefs to store, without their source yet. */
export type PriceRow = Omit<BeliefInput, 'sourceId'>;

/**
 * Stores prices as beliefs of their source. A belief with the timing of a stored one overwrites
 * it: the writer is the one authority on its source, and a tariff changed twice in the same
 * millisecond means the later definition.
 * @returns how many beliefs were stored (left out when the source believed them already).
 */
export async function storePrices(trx: Knex.Transaction, source: SourceProps, rows: PriceRow[]): Promise<number> {
  const src = await getOrCreateSource(trx, source);
  const result = await recordBeliefs(
    trx,
    rows.map((r) => ({ ...r, sourceId: src.id })),
    { allowOverwrite: true },
  );
  return result.inserted + result.replaced;
}

/**
 * Writes a tariff's prices in the caller's transaction, believed at `nowMs`, through the end of
 * the second day after today (the tariff's zone), or of the day the planning horizon ends in. `ahead` (the hourly tick) writes the intervals
 * still to end; `today` (a tariff stored or changed) also the hours of today already past, so
 * that a schedule from the start of today and today's realised money have prices at once, and
 * a changed tariff's newer beliefs supersede the old ones for every interval it wrote.
 * @returns how many beliefs were stored.
 */
export async function writeTariffPrices(
  trx: Knex.Transaction,
  t: Pick<tariffs.Tariff, 'id' | 'definition'>,
  at: { nowMs: number; horizonMs: number },
  from: 'ahead' | 'today',
): Promise<number> {
  const { nowMs } = at;
  const d = t.definition;
  const day = DateTime.fromMillis(nowMs, { zone: d.timezone }).startOf('day');
  const horizonEnd = DateTime.fromMillis(nowMs + at.horizonMs, { zone: d.timezone })
    .startOf('day')
    .plus({ days: 1 });
  const [fromMs, toMs] = [day.toMillis(), Math.max(day.plus({ days: AHEAD_DAYS }).toMillis(), horizonEnd.toMillis())];
  const rows: PriceRow[] = [];
  const series: [number, (startMs: number) => number][] = [[d.consumption_price_sensor, (s) => tariffPriceAt(d, s)]];
  if (d.production_price_sensor !== undefined) series.push([d.production_price_sensor, () => d.feed_in_price!]);
  for (const [sensorId, priceAt] of series) {
    const sensor = (await getSensor(trx, sensorId))!;
    // An instantaneous sensor gets one price per hour.
    const stepMs = sensor.event_resolution_ms || 3600_000;
    for (let s = fromMs; s < toMs; s += stepMs) {
      if (from === 'today' || s + stepMs > nowMs) rows.push({ sensorId, eventStartMs: s, beliefTimeMs: nowMs, value: priceAt(s) });
    }
  }
  return storePrices(trx, { name: 'Flexsite tariff', type: 'reporter', model: `tariff ${t.id}` }, rows);
}

const affected = (asset: Asset) => ({ assetId: asset.id, accountId: asset.account_id });

/** Adds a tariff to an asset and writes its prices (422 beyond the limits or for a value that is no price). */
export async function addTariff(deps: TariffDeps, user: User, asset: Asset, definition: TariffDefinition): Promise<tariffs.Tariff> {
  const { trx, clock } = deps;
  await checkTariffLimits(trx, deps.config.limits, asset, definition, true);
  await checkTariffValues(trx, definition);
  const nowMs = clock.now();
  const tariff = await tariffs.createTariff(trx, asset.id, user.id, definition, nowMs);
  await writeTariffPrices(trx, tariff, { nowMs, horizonMs: deps.config.planningHorizonMs }, 'today');
  await recordAudit(trx, actorOf(user), affected(asset), `Added tariff '${definition.name}': ${tariff.id}`);
  return tariff;
}

/**
 * Replaces a tariff's definition and writes its prices anew: believed now, they supersede the old
 * ones for every interval from the start of today, so that readers of the most recent belief (the
 * scheduler, the chart) see one price per interval, the new one.
 * @returns the changed tariff; 404 when the asset has no tariff of this id.
 */
export async function changeTariff(
  deps: TariffDeps,
  user: User,
  asset: Asset,
  change: { id: number; definition: TariffDefinition },
): Promise<tariffs.Tariff> {
  const { trx, clock } = deps;
  if (!(await tariffs.getTariff(trx, asset.id, change.id))) throw notFound(`Asset ${asset.id} has no tariff ${change.id}.`);
  await checkTariffLimits(trx, deps.config.limits, asset, change.definition, false);
  await checkTariffValues(trx, change.definition);
  const tariff = await tariffs.updateTariff(trx, change.id, change.definition);
  await writeTariffPrices(trx, tariff, { nowMs: clock.now(), horizonMs: deps.config.planningHorizonMs }, 'today');
  await recordAudit(trx, actorOf(user), affected(asset), `Changed tariff '${change.definition.name}': ${tariff.id}`);
  return tariff;
}
