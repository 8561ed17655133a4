import type { Knex } from 'knex';
import type { TariffDefinition } from '../contracts/tariffs.ts';
import { recordAudit, type Writer } from './auditLog.ts';

export interface Tariff {
  id: number;
  assetId: number;
  ownerId: number | null;
  definition: TariffDefinition;
  createdAtMs: number;
}

interface DbTariff {
  id: number;
  asset_id: number;
  owner_id: number | null;
  name: string;
  definition: string;
  created_at: number;
}

const fromRow = (r: DbTariff): Tariff => ({
  id: Number(r.id),
  assetId: Number(r.asset_id),
  ownerId: r.owner_id === null ? null : Number(r.owner_id),
  definition: JSON.parse(r.definition) as TariffDefinition,
  createdAtMs: Number(r.created_at),
});

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
  return fromRow((await trx<DbTariff>('tariff').where({ id }).first())!);
}

/** @returns the tariff of this id on this asset, or undefined. */
export async function getTariff(db: Knex, assetId: number, id: number): Promise<Tariff | undefined> {
  const row = await db<DbTariff>('tariff').where({ id, asset_id: assetId }).first();
  return row && fromRow(row);
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
  return fromRow((await trx<DbTariff>('tariff').where({ id }).first())!);
}

/** @returns the tariffs of an asset, or all of them. */
export async function listTariffs(db: Knex, filter: { assetId?: number } = {}): Promise<Tariff[]> {
  const q = db<DbTariff>('tariff').orderBy('id');
  if (filter.assetId !== undefined) q.where({ asset_id: filter.assetId });
  return (await q).map(fromRow);
}

export interface PriceConnector {
  id: number;
  assetId: number;
  ownerId: number | null;
  sensorId: number;
  biddingZone: string;
  createdAtMs: number;
  /** When its prices were last written; null before the first write. */
  lastWrittenAtMs: number | null;
  /** Why its last attempt wrote nothing; null once one succeeds. */
  lastError: string | null;
}

interface DbPriceConnector {
  id: number;
  asset_id: number;
  owner_id: number | null;
  sensor_id: number;
  bidding_zone: string;
  created_at: number;
  last_written_at: number | null;
  last_error: string | null;
}

const connectorFromRow = (r: DbPriceConnector): PriceConnector => ({
  id: Number(r.id),
  assetId: Number(r.asset_id),
  ownerId: r.owner_id === null ? null : Number(r.owner_id),
  sensorId: Number(r.sensor_id),
  biddingZone: r.bidding_zone,
  createdAtMs: Number(r.created_at),
  lastWrittenAtMs: r.last_written_at === null ? null : Number(r.last_written_at),
  lastError: r.last_error,
});

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
  return connectorFromRow((await trx<DbPriceConnector>('price_connector').where({ id }).first())!);
}

/** @returns the connector of this id, or undefined. */
export async function getPriceConnector(db: Knex, id: number): Promise<PriceConnector | undefined> {
  const row = await db<DbPriceConnector>('price_connector').where({ id }).first();
  return row && connectorFromRow(row);
}

/** Records how a connector's attempt ended: written at a time, or failed (the last write's time stays). */
export async function setConnectorOutcome(db: Knex, id: number, outcome: { writtenAtMs: number } | { error: string }): Promise<void> {
  await db('price_connector')
    .where({ id })
    .update('writtenAtMs' in outcome ? { last_written_at: outcome.writtenAtMs, last_error: null } : { last_error: outcome.error });
}

/** @returns the day-ahead price connectors of an asset, or all of them. */
export async function listPriceConnectors(db: Knex, filter: { assetId?: number } = {}): Promise<PriceConnector[]> {
  const q = db<DbPriceConnector>('price_connector').orderBy('id');
  if (filter.assetId !== undefined) q.where({ asset_id: filter.assetId });
  return (await q).map(connectorFromRow);
}
