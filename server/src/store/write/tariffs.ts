import type { Knex } from 'knex';
import type { TariffDefinition } from '../../contracts/tariffs.ts';
import type { Writer } from '../auditLog.ts';
import { getPriceConnector, getTariff, type PriceConnector, type Tariff } from '../tariffs.ts';
import { recordAudit } from './auditLog.ts';

/** The asset a tariff or connector is on, which its audit entry is about. */
type OnAsset = { id: number; account_id: number | null };

const about = (asset: OnAsset) => ({ assetId: asset.id, accountId: asset.account_id });

/** Adds a tariff to an asset, written with its owner's rights, and records it. */
export async function createTariff(
  trx: Knex.Transaction,
  by: Writer,
  made: { asset: OnAsset; ownerId: number | null; definition: TariffDefinition; nowMs: number },
): Promise<Tariff> {
  const { asset, ownerId, definition, nowMs } = made;
  const [{ id }] = await trx('tariff')
    .insert({ asset_id: asset.id, owner_id: ownerId, name: definition.name, definition: JSON.stringify(definition), created_at: nowMs })
    .returning<{ id: number }[]>('id');
  await recordAudit(trx, by, about(asset), `Added tariff '${definition.name}': ${id}`);
  return (await getTariff(trx, asset.id, id))!;
}

/** Replaces a tariff's definition (its owner and creation time stay) and records it. */
export async function updateTariff(
  trx: Knex.Transaction,
  by: Writer,
  change: { asset: OnAsset; id: number; definition: TariffDefinition },
): Promise<Tariff> {
  const { id, definition } = change;
  await trx('tariff')
    .where({ id })
    .update({ name: definition.name, definition: JSON.stringify(definition) });
  await recordAudit(trx, by, about(change.asset), `Changed tariff '${definition.name}': ${id}`);
  return (await getTariff(trx, change.asset.id, id))!;
}

/**
 * Withdraws prices a source wrote to some sensors for events from `fromMs` on: what a deleted tariff
 * wrote ahead, or what a changed one wrote to a sensor it no longer writes to.
 * @returns how many beliefs were withdrawn.
 */
export async function withdrawPrices(trx: Knex.Transaction, sourceId: number, sensorIds: number[], fromMs: number): Promise<number> {
  if (!sensorIds.length) return 0;
  return trx('timed_belief').where({ source_id: sourceId }).whereIn('sensor_id', sensorIds).andWhere('event_start', '>=', fromMs).delete();
}

/** Deletes a tariff and records it, with how many of its prices were withdrawn from when. */
export async function deleteTariff(
  trx: Knex.Transaction,
  by: Writer,
  gone: { asset: OnAsset; tariff: Tariff; withdrawal: { withdrawn: number; fromIso: string } },
): Promise<void> {
  const { tariff, withdrawal } = gone;
  await trx('tariff').where({ id: tariff.id }).delete();
  const event = `Deleted tariff '${tariff.definition.name}': ${tariff.id}; withdrew its ${withdrawal.withdrawn} prices from ${withdrawal.fromIso}`;
  await recordAudit(trx, by, about(gone.asset), event);
}

/** Adds a day-ahead price connector to an asset, written with its owner's rights, and records it. */
export async function createPriceConnector(
  trx: Knex.Transaction,
  by: Writer,
  made: { asset: OnAsset; ownerId: number | null; sensorId: number; biddingZone: string; nowMs: number },
): Promise<PriceConnector> {
  const { asset, ownerId, sensorId, biddingZone, nowMs } = made;
  const [{ id }] = await trx('price_connector')
    .insert({ asset_id: asset.id, owner_id: ownerId, sensor_id: sensorId, bidding_zone: biddingZone, created_at: nowMs })
    .returning<{ id: number }[]>('id');
  await recordAudit(trx, by, about(asset), `Added day-ahead price connector (${biddingZone}) for sensor ${sensorId}: ${id}`);
  return (await getPriceConnector(trx, id))!;
}

/** Points a connector at another sensor or bidding zone (its owner and creation time stay) and records it. */
export async function updatePriceConnector(
  trx: Knex.Transaction,
  by: Writer,
  change: { asset: OnAsset; id: number; sensorId: number; biddingZone: string },
): Promise<PriceConnector> {
  const { id, sensorId, biddingZone } = change;
  await trx('price_connector').where({ id }).update({ sensor_id: sensorId, bidding_zone: biddingZone });
  await recordAudit(trx, by, about(change.asset), `Changed day-ahead price connector (${biddingZone}) for sensor ${sensorId}: ${id}`);
  return (await getPriceConnector(trx, id))!;
}

/** Records how a connector's attempt ended: written at a time, or failed (the last write's time stays). */
export async function setConnectorOutcome(db: Knex, id: number, outcome: { writtenAtMs: number } | { error: string }): Promise<void> {
  await db('price_connector')
    .where({ id })
    .update('writtenAtMs' in outcome ? { last_written_at: outcome.writtenAtMs, last_error: null } : { last_error: outcome.error });
}
