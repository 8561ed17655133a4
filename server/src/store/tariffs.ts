import type { Knex } from 'knex';
import type { TariffDefinition } from '../contracts/tariffs.ts';

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

/** @returns the tariff of this id on this asset, or undefined. */
export async function getTariff(db: Knex, assetId: number, id: number): Promise<Tariff | undefined> {
  const row = await db<DbTariff>('tariff').where({ id, asset_id: assetId }).first();
  return row && fromRow(row);
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

/** @returns the connector of this id, or undefined. */
export async function getPriceConnector(db: Knex, id: number): Promise<PriceConnector | undefined> {
  const row = await db<DbPriceConnector>('price_connector').where({ id }).first();
  return row && connectorFromRow(row);
}

/** @returns the day-ahead price connectors of an asset, or all of them. */
export async function listPriceConnectors(db: Knex, filter: { assetId?: number } = {}): Promise<PriceConnector[]> {
  const q = db<DbPriceConnector>('price_connector').orderBy('id');
  if (filter.assetId !== undefined) q.where({ asset_id: filter.assetId });
  return (await q).map(connectorFromRow);
}
