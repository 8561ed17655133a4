import type { Knex } from 'knex';
import type { TariffDefinition } from '../contracts/tariffs.ts';
import { DateTime } from 'luxon';
import { notFound } from '../errors.ts';
import { authorize } from '../policies/access.ts';
import { auditActor, rightsOf, type Principal } from '../policies/principal.ts';
import { assetAccess, authorizeReferences, type Reference } from '../policies/references.ts';
import {
  checkConnectorLimit,
  checkSinglePriceWriter,
  checkTariffLimits,
  connectorReferences,
  mayWritePrices,
  tariffReferences,
  tariffSensors,
} from '../policies/tariffs.ts';
import { checkTariffValues } from '../scheduling/storedValues.ts';
import type { Asset } from '../store/assets.ts';
import { type BeliefInput } from '../store/beliefs.ts';
import { recordBeliefs } from '../store/write/beliefs.ts';
import { getSensor } from '../store/sensors.ts';
import { type SourceProps } from '../store/sources.ts';
import { findSource } from '../store/sources.ts';
import { getOrCreateSource } from '../store/write/sources.ts';
import * as tariffs from '../store/tariffs.ts';
import * as write from '../store/write/tariffs.ts';
import type { Writes } from './context.ts';
import { tariffPriceAt } from '../domain/tariffPrice.ts';
import { conversion } from '../domain/units.ts';

/**
 * Tariffs and day-ahead connectors, stored and changed with their prices: a schedule triggered
 * right after finds them, from the start of today (the tariff's zone) through the planning
 * horizon, and the hourly tick only keeps them ahead. Each runs in the caller's transaction,
 * whose store write records the audit entry; the principal's user owns what is added, and its
 * prices are written later with that user's current rights.
 */

/** How far ahead prices are written at least: the rest of today and the next two days, in the tariff's zone. */
const AHEAD_DAYS = 3;

/** The source a tariff's prices are beliefs of: one per tariff, so that its prices can be told apart and withdrawn. */
const tariffSource = (id: number): SourceProps => ({ name: 'Flexsite tariff', type: 'reporter', model: `tariff ${id}` });

/** The start of today in the tariff's zone: a tariff writes its prices from there, and a change or deletion supersedes them from there. */
const startOfToday = (d: TariffDefinition, nowMs: number) => DateTime.fromMillis(nowMs, { zone: d.timezone }).startOf('day');

/** Price beliefs to store, without their source yet. */
export type PriceRow = Omit<BeliefInput, 'sourceId'>;

/**
 * Stores prices as beliefs of their source. A belief with the timing of a stored one overwrites
 * it: the writer is the one authority on its source, and a tariff changed twice in the same
 * millisecond means the later definition.
 * @returns how many beliefs were stored (left out when the source believed them already).
 */
async function storePrices(trx: Knex.Transaction, source: SourceProps, rows: PriceRow[]): Promise<number> {
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
async function pricesAhead(
  trx: Knex.Transaction,
  t: Pick<tariffs.Tariff, 'id' | 'definition'>,
  at: { nowMs: number; horizonMs: number },
  from: 'ahead' | 'today',
): Promise<number> {
  const { nowMs } = at;
  const d = t.definition;
  const day = startOfToday(d, nowMs);
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
    // Entered per kWh, written per MWh (or the other way round); checked convertible when stored.
    const { scale } = conversion(d.unit ?? sensor.unit, sensor.unit, 0) ?? { scale: 1 };
    // Twelve digits: 0.07 EUR/kWh is written as 70 EUR/MWh, not 70.00000000000001.
    const inSensorUnit = (v: number) => (scale === 1 ? v : Number((v * scale).toPrecision(12)));
    for (let s = fromMs; s < toMs; s += stepMs) {
      if (from === 'today' || s + stepMs > nowMs)
        rows.push({ sensorId, eventStartMs: s, beliefTimeMs: nowMs, value: inSensorUnit(priceAt(s)) });
    }
  }
  return storePrices(trx, tariffSource(t.id), rows);
}

/**
 * Writes a stored tariff's prices ahead of the clock (the hourly tick), as the tariff's owner
 * with their current rights: the asset must still exist, and the owner and its account may still
 * write the price sensors.
 * @returns how many beliefs were stored.
 */
export async function writeTariffPrices(
  context: Writes<'config'>,
  principal: Principal,
  input: { tariff: Pick<tariffs.Tariff, 'id' | 'assetId' | 'definition'>; nowMs: number },
): Promise<number> {
  const { db, config } = context;
  const { tariff, nowMs } = input;
  await mayWritePrices(db, principal, tariff.assetId, tariffReferences(tariff.definition));
  return pricesAhead(db, tariff, { nowMs, horizonMs: config.planningHorizonMs }, 'ahead');
}

/**
 * Stores a day-ahead connector's prices as beliefs of the source "ENTSO-E", as the connector's
 * owner with their current rights (as a tariff's).
 * @returns how many beliefs were stored.
 */
export async function writeDayAheadPrices(
  context: Writes,
  principal: Principal,
  input: { connector: Pick<tariffs.PriceConnector, 'assetId' | 'sensorId'>; rows: PriceRow[] },
): Promise<number> {
  const { db } = context;
  const { connector, rows } = input;
  await mayWritePrices(db, principal, connector.assetId, connectorReferences(connector.sensorId));
  return storePrices(db, { name: 'ENTSO-E', type: 'reporter', model: 'day-ahead' }, rows);
}

/**
 * The principal may change the asset (`permission` on it) and write the price sensors, and so may
 * the asset's account: its prices are written later with the owner's rights, for that account.
 */
async function authorizePrices(db: Knex, principal: Principal, asset: Asset, permission: 'create-children' | 'update', refs: Reference[]) {
  authorize(principal, permission, await assetAccess(db, asset.account_id));
  await authorizeReferences(db, principal, refs, [], asset.account_id);
}

/**
 * Withdraws a tariff's prices from the start of today (its zone) on, on the sensors named: all of
 * them when it is deleted, those it no longer writes to when it is changed. Earlier days keep
 * their prices: they are what was in force then, which realised money is reckoned with.
 * @returns how many were withdrawn, and from when.
 */
async function withdrawTariffPrices(db: Knex.Transaction, t: tariffs.Tariff, sensorIds: number[], nowMs: number) {
  const from = startOfToday(t.definition, nowMs);
  const source = await findSource(db, tariffSource(t.id));
  const withdrawn = source ? await write.withdrawPrices(db, source.id, sensorIds, from.toMillis()) : 0;
  return { withdrawn, fromIso: from.toISO()! };
}

/**
 * Adds a tariff to an asset (no `id`) or replaces tariff `id`'s definition, and writes its prices
 * anew: believed now, they supersede a changed tariff's old ones for every interval from the start
 * of today, so that readers of the most recent belief (the scheduler, the chart) see one price per
 * interval, the new one; a sensor it no longer writes to loses its prices from today on. 422 beyond
 * the limits, for a value that is no price, or for a price sensor another tariff or connector
 * writes to; 404 when the asset has no tariff `id`.
 */
export async function saveTariff(
  context: Writes<'config' | 'clock'>,
  principal: Principal,
  input: { asset: Asset; id?: number; definition: TariffDefinition },
): Promise<tariffs.Tariff> {
  const { db, clock, config } = context;
  const { asset, id, definition } = input;
  await authorizePrices(db, principal, asset, id === undefined ? 'create-children' : 'update', tariffReferences(definition));
  const before = id === undefined ? undefined : await tariffs.getTariff(db, asset.id, id);
  if (id !== undefined && !before) throw notFound(`Asset ${asset.id} has no tariff ${id}.`);
  await checkTariffLimits(db, config.limits, asset, definition, id === undefined);
  await checkTariffValues(db, definition);
  await checkSinglePriceWriter(db, tariffSensors(definition), { tariff: id });
  const nowMs = clock.now();
  if (before) {
    const kept = new Set(tariffSensors(definition).map(([, s]) => s));
    const dropped = tariffSensors(before.definition).flatMap(([, s]) => (kept.has(s) ? [] : [s]));
    await withdrawTariffPrices(db, before, dropped, nowMs);
  }
  const tariff =
    id === undefined
      ? await write.createTariff(db, auditActor(principal), { asset, ownerId: rightsOf(principal)?.id ?? null, definition, nowMs })
      : await write.updateTariff(db, auditActor(principal), { asset, id, definition });
  await pricesAhead(db, tariff, { nowMs, horizonMs: config.planningHorizonMs }, 'today');
  return tariff;
}

/**
 * Deletes a tariff: the hourly tick no longer writes it, and its prices from the start of today
 * (its zone) on are withdrawn, so that no schedule plans with a price no one stands behind any
 * more; earlier days keep theirs. 404 when the asset has no such tariff.
 */
export async function deleteTariff(context: Writes<'clock'>, principal: Principal, input: { asset: Asset; id: number }): Promise<void> {
  const { db, clock } = context;
  const { asset, id } = input;
  authorize(principal, 'update', await assetAccess(db, asset.account_id));
  const tariff = await tariffs.getTariff(db, asset.id, id);
  if (!tariff) throw notFound(`Asset ${asset.id} has no tariff ${id}.`);
  // Withdrawing prices writes to their sensors: those still there must be the principal's to write.
  const sensors = (await Promise.all(tariffSensors(tariff.definition).map(([, s]) => getSensor(db, s)))).flatMap((s) => (s ? [s.id] : []));
  const refs = tariffReferences(tariff.definition).filter((r) => sensors.includes(r.id));
  await authorizePrices(db, principal, asset, 'update', refs);
  const withdrawal = await withdrawTariffPrices(db, tariff, sensors, clock.now());
  await write.deleteTariff(db, auditActor(principal), { asset, tariff, withdrawal });
}

/**
 * Adds a day-ahead price connector writing a bidding zone's prices to a price sensor (422 beyond
 * the limit). Its caller fetches its prices once it is stored, outside this transaction: the
 * platform may take its time, and a failed fetch must leave the connector stored with its error.
 */
export async function addPriceConnector(
  context: Writes<'config' | 'clock'>,
  principal: Principal,
  input: { asset: Asset; sensorId: number; biddingZone: string },
): Promise<tariffs.PriceConnector> {
  const { db, clock, config } = context;
  const { asset, sensorId, biddingZone } = input;
  await authorizePrices(db, principal, asset, 'create-children', connectorReferences(sensorId));
  await checkConnectorLimit(db, config.limits, asset);
  await checkSinglePriceWriter(db, [['sensor', sensorId]], 'connector');
  const made = { asset, ownerId: rightsOf(principal)?.id ?? null, sensorId, biddingZone, nowMs: clock.now() };
  return write.createPriceConnector(db, auditActor(principal), made);
}

/**
 * Points a day-ahead price connector at another price sensor or bidding zone. As when it is
 * added, its caller writes its prices at once, once this transaction has ended.
 * @returns the changed connector; 404 when the asset has no connector of this id.
 */
export async function changePriceConnector(
  context: Writes,
  principal: Principal,
  input: { asset: Asset; id: number; sensorId: number; biddingZone: string },
): Promise<tariffs.PriceConnector> {
  const { db } = context;
  const { asset, id, sensorId, biddingZone } = input;
  await authorizePrices(db, principal, asset, 'update', connectorReferences(sensorId));
  if ((await tariffs.getPriceConnector(db, id))?.assetId !== asset.id) throw notFound(`Asset ${asset.id} has no price connector ${id}.`);
  await checkSinglePriceWriter(db, [['sensor', sensorId]], 'connector');
  return write.updatePriceConnector(db, auditActor(principal), { asset, id, sensorId, biddingZone });
}
