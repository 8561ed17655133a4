import type { Knex } from 'knex';
import type { Config } from '../config.ts';
import type { TariffDefinition } from '../contracts/tariffs.ts';
import { fieldError } from '../errors.ts';
import { getAsset } from '../store/assets.ts';
import { getSensor } from '../store/sensors.ts';
import { getUser } from '../store/users.ts';
import type { Principal } from './principal.ts';
import { firstRefused, type Reference } from './references.ts';

/**
 * What tariffs and day-ahead price connectors may do: the operator's limits on them, the price
 * sensors they write to, and whose rights their prices are written with (their owner's, checked
 * again at every write).
 */

/** The price sensors a tariff writes to, by the field naming each. */
export const tariffSensors = (d: TariffDefinition): [string, number][] =>
  Object.entries({ consumption_price_sensor: d.consumption_price_sensor, production_price_sensor: d.production_price_sensor }).filter(
    (e): e is [string, number] => e[1] !== undefined,
  );

/** How many rows of `table` belong to the assets of an account (null: assets of no account). */
async function countOfAccount(db: Knex, table: 'tariff' | 'price_connector', accountId: number | null): Promise<number> {
  const q = db(table).join('generic_asset', 'generic_asset.id', `${table}.asset_id`);
  if (accountId === null) q.whereNull('generic_asset.account_id');
  else q.where('generic_asset.account_id', accountId);
  const [{ n }] = await q.count<{ n: number | string }[]>({ n: '*' });
  return Number(n);
}

/**
 * Refuses a tariff beyond the operator's limits (a 422 naming the field): a price sensor is finer
 * than a tariff may write (every interval of it is written three days ahead each hour), or, for a
 * new tariff, the account has the most tariffs allowed.
 * @param db the write's transaction, so that two concurrent requests cannot both pass the count.
 * @param adding whether the tariff is new (a changed one is already counted).
 */
export async function checkTariffLimits(
  db: Knex,
  limits: Config['limits'],
  asset: { id: number; account_id: number | null },
  d: TariffDefinition,
  adding: boolean,
): Promise<void> {
  for (const [field, id] of tariffSensors(d)) {
    const sensor = await getSensor(db, id);
    // Instantaneous sensors (resolution 0) get one price per hour.
    if (sensor && sensor.event_resolution_ms > 0 && sensor.event_resolution_ms < limits.tariffMinResolutionMs) {
      const finest = `${limits.tariffMinResolutionMs / 60_000} minutes`;
      throw fieldError('json', field, `A tariff writes to sensors of a resolution of at least ${finest}; sensor ${id} is finer.`);
    }
  }
  if (adding && (await countOfAccount(db, 'tariff', asset.account_id)) >= limits.tariffsPerAccount) {
    throw fieldError('json', '_schema', `The account of asset ${asset.id} has the most tariffs allowed (${limits.tariffsPerAccount}).`);
  }
}

/**
 * Refuses a second writer of prices to one sensor (a 422 naming the field): two tariffs, or a
 * tariff and a day-ahead connector, on one price sensor would each write their own price for the
 * same hours, and readers would zig-zag between them. One tariff is in force per price sensor;
 * a correction changes that tariff (its newer prices supersede the old ones) instead of adding one.
 * Connectors of one zone on one sensor write the same prices as one source, so they may share it.
 * @param of a tariff (and its id when it is changed), or a connector, writing to `sensors`.
 */
export async function checkSinglePriceWriter(
  db: Knex,
  sensors: [field: string, id: number][],
  of: { tariff: number | undefined } | 'connector',
): Promise<void> {
  const ids = sensors.map(([, id]) => id);
  const except = of === 'connector' ? undefined : of.tariff;
  const tariffs = (await db<{ id: number; name: string; definition: string }>('tariff').select('id', 'name', 'definition')).filter(
    (t) => Number(t.id) !== except,
  );
  const connectors: { id: number; sensor_id: number }[] = of === 'connector' ? [] : await db('price_connector').whereIn('sensor_id', ids);
  for (const [field, id] of sensors) {
    const tariff = tariffs.find((t) => tariffSensors(JSON.parse(t.definition) as TariffDefinition).some(([, s]) => s === id));
    const connector = connectors.find((c) => Number(c.sensor_id) === id);
    const writer = tariff ? `tariff '${tariff.name}' (${tariff.id})` : connector && `day-ahead price connector ${connector.id}`;
    if (writer) throw fieldError('json', field, `Sensor ${id} already gets its prices from ${writer}: change or delete that instead.`);
  }
}

/** Refuses a day-ahead price connector beyond the account's limit (a 422). */
export async function checkConnectorLimit(db: Knex, limits: Config['limits'], asset: { id: number; account_id: number | null }) {
  if ((await countOfAccount(db, 'price_connector', asset.account_id)) >= limits.priceConnectorsPerAccount) {
    const most = limits.priceConnectorsPerAccount;
    throw fieldError('json', '_schema', `The account of asset ${asset.id} has the most day-ahead price connectors allowed (${most}).`);
  }
}

/** A sensor prices are written to, as a reference its owner must be (and stay) allowed to write. */
const writeRef = (id: number, field: string): Reference => ({ kind: 'sensor', id, use: 'write', location: 'json', field });

/** The price sensors a tariff writes to: checked when it is stored and before each write. */
export function tariffReferences(d: TariffDefinition): Reference[] {
  const refs = [writeRef(d.consumption_price_sensor, 'consumption_price_sensor')];
  if (d.production_price_sensor !== undefined) refs.push(writeRef(d.production_price_sensor, 'production_price_sensor'));
  return refs;
}

/** The price sensor a day-ahead connector writes to. */
export const connectorReferences = (sensorId: number): Reference[] => [writeRef(sensorId, 'sensor')];

/**
 * The principal a tariff's or connector's prices are written as, later, by the clock: the user who
 * added it, with their current rights, as an automation runs as its maker.
 * @throws while the owner is gone or no longer active.
 */
export async function priceOwner(db: Knex, ownerId: number | null): Promise<Principal> {
  const owner = ownerId === null ? undefined : await getUser(db, ownerId);
  if (!owner?.active) throw new Error('the owner is no longer active');
  return { kind: 'user', user: owner };
}

/** Throws unless the asset still exists and the principal and the asset's account may still write these sensors. */
export async function mayWritePrices(db: Knex, principal: Principal, assetId: number, refs: Reference[]): Promise<void> {
  const asset = await getAsset(db, assetId);
  if (!asset) throw new Error(`asset ${assetId} no longer exists`);
  const refused = await firstRefused(db, principal, refs, undefined, asset.account_id);
  if (refused) throw new Error(`the owner may no longer write sensor ${refused.id}`);
}
