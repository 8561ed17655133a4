import type { Knex } from 'knex';
import { defined } from './defined.ts';

export interface Asset {
  id: number;
  name: string;
  latitude: number | null;
  longitude: number | null;
  generic_asset_type_id: number;
  account_id: number | null;
  parent_asset_id: number | null;
  attributes: Record<string, unknown>;
}

export interface AssetType {
  id: number;
  name: string;
  description: string | null;
}

type DbAsset = Omit<Asset, 'attributes'> & { attributes: string };

const fromRow = (r: DbAsset): Asset => ({ ...r, attributes: JSON.parse(r.attributes) as Record<string, unknown> });

/** @returns the asset, or undefined. */
export async function getAsset(db: Knex, id: number): Promise<Asset | undefined> {
  const row = await db<DbAsset>('generic_asset').where({ id }).first();
  return row && fromRow(row);
}

/** @returns the assets of an account, or the public ones for `null`. */
export async function listAssets(db: Knex, accountId: number | null): Promise<Asset[]> {
  const q = db<DbAsset>('generic_asset').orderBy('id');
  if (accountId === null) q.whereNull('account_id');
  else q.where({ account_id: accountId });
  return (await q).map(fromRow);
}

/** @returns every asset type. */
export async function listAssetTypes(db: Knex): Promise<AssetType[]> {
  return db<AssetType>('generic_asset_type').orderBy('id');
}

/** @returns the asset type, or undefined. */
export async function getAssetType(db: Knex, id: number): Promise<AssetType | undefined> {
  return db<AssetType>('generic_asset_type').where({ id }).first();
}

/** @returns the asset type with this name, created if it does not exist yet. */
export async function ensureAssetType(trx: Knex.Transaction, name: string, description: string): Promise<AssetType> {
  await trx('generic_asset_type').insert({ name, description }).onConflict('name').ignore();
  return (await trx<AssetType>('generic_asset_type').where({ name }).first())!;
}

/** @returns whether another asset with this name exists under the same parent in the same account. */
export async function assetNameTaken(
  db: Knex,
  props: { name: string; parentId: number | null; accountId: number | null; exceptId?: number },
): Promise<boolean> {
  const q = db('generic_asset').where({ name: props.name });
  // NULLs never compare equal in SQL, so "no parent" and "public" need their own conditions.
  if (props.parentId === null) q.whereNull('parent_asset_id');
  else q.where({ parent_asset_id: props.parentId });
  if (props.accountId === null) q.whereNull('account_id');
  else q.where({ account_id: props.accountId });
  if (props.exceptId !== undefined) q.whereNot({ id: props.exceptId });
  return Boolean(await q.first('id'));
}

/** @returns the new asset. */
export async function createAsset(trx: Knex.Transaction, props: Omit<Asset, 'id'>): Promise<Asset> {
  const [{ id }] = await trx('generic_asset')
    .insert({ ...props, attributes: JSON.stringify(props.attributes) })
    .returning<{ id: number }[]>('id');
  return (await getAsset(trx, id))!;
}

/** Updates the given fields of an asset. */
export async function updateAsset(
  trx: Knex.Transaction,
  id: number,
  changes: Partial<Omit<Asset, 'id' | 'account_id'>>,
): Promise<void> {
  const row: Record<string, unknown> = defined(changes);
  if (changes.attributes) row.attributes = JSON.stringify(changes.attributes);
  if (Object.keys(row).length) await trx('generic_asset').where({ id }).update(row);
}

/** Deletes an asset; child assets, sensors and their data cascade. */
export async function deleteAsset(trx: Knex.Transaction, id: number): Promise<boolean> {
  return (await trx('generic_asset').where({ id }).delete()) > 0;
}
