import type { Knex } from 'knex';
import { getAsset, type Asset, type AssetType } from '../assets.ts';
import type { Writer } from '../auditLog.ts';
import { recordAudit } from './auditLog.ts';
import { defined } from '../defined.ts';
import { changeEvents } from '../auditEvents.ts';

/** Stores the given parts of an asset's flex configuration. */
async function saveFlex(trx: Knex.Transaction, assetId: number, flex: Partial<Pick<Asset, 'flex_context' | 'flex_model'>>): Promise<void> {
  const row = Object.fromEntries(
    (['flex_context', 'flex_model'] as const).filter((k) => flex[k] !== undefined).map((k) => [k, JSON.stringify(flex[k])]),
  );
  if (!Object.keys(row).length) return;
  await trx('generic_asset_flex')
    .insert({ asset_id: assetId, ...row })
    .onConflict('asset_id')
    .merge(row);
}

/** @returns the asset type with this name, created if it does not exist yet. */
export async function ensureAssetType(trx: Knex.Transaction, name: string, description: string): Promise<AssetType> {
  await trx('generic_asset_type').insert({ name, description }).onConflict('name').ignore();
  return (await trx<AssetType>('generic_asset_type').where({ name }).first())!;
}

/**
 * Creates an asset and records its entry.
 * @returns the new asset.
 */
export async function createAsset(
  trx: Knex.Transaction,
  by: Writer,
  props: Omit<Asset, 'id' | 'flex_context' | 'flex_model'> & Partial<Pick<Asset, 'flex_context' | 'flex_model'>>,
): Promise<Asset> {
  const { flex_context, flex_model, ...asset } = props;
  const [{ id }] = await trx('generic_asset')
    .insert({ ...asset, attributes: JSON.stringify(asset.attributes) })
    .returning<{ id: number }[]>('id');
  await saveFlex(trx, id, { flex_context, flex_model });
  await recordAudit(trx, by, { assetId: id, accountId: asset.account_id }, `Created asset '${asset.name}': ${id}`);
  return (await getAsset(trx, id))!;
}

/** Updates the given fields of an asset, recording one entry per changed field and attribute. */
export async function updateAsset(
  trx: Knex.Transaction,
  by: Writer,
  before: Asset,
  changes: Partial<Omit<Asset, 'id' | 'account_id'>>,
): Promise<void> {
  const { id } = before;
  const { flex_context, flex_model, ...rest } = changes;
  const row: Record<string, unknown> = defined(rest);
  if (rest.attributes) row.attributes = JSON.stringify(rest.attributes);
  if (Object.keys(row).length) await trx('generic_asset').where({ id }).update(row);
  await saveFlex(trx, id, { flex_context, flex_model });
  for (const event of changeEvents(before, changes)) await recordAudit(trx, by, { assetId: id, accountId: before.account_id }, event);
}

/** Deletes an asset and records it; child assets, sensors and their data cascade. */
export async function deleteAsset(trx: Knex.Transaction, by: Writer, asset: Asset): Promise<boolean> {
  const deleted = (await trx('generic_asset').where({ id: asset.id }).delete()) > 0;
  if (deleted) await recordAudit(trx, by, { assetId: asset.id, accountId: asset.account_id }, `Deleted asset '${asset.name}': ${asset.id}`);
  return deleted;
}
