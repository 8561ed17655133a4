import type { Knex } from 'knex';

export interface Asset {
  id: number;
  name: string;
  latitude: number | null;
  longitude: number | null;
  generic_asset_type_id: number;
  account_id: number | null;
  parent_asset_id: number | null;
  attributes: Record<string, unknown>;
  /** Stored scheduling configuration (FlexMeasures 1.0): used when a trigger does not say otherwise. */
  flex_context: Record<string, unknown>;
  flex_model: Record<string, unknown>;
  /** FlexMeasures 1.0: free text, and the asset's id in another system (unique within the account). */
  description?: string | null;
  external_id?: string | null;
}

export interface AssetType {
  id: number;
  name: string;
  description: string | null;
}

/** An asset row joined with its flex configuration row, which exists once some is stored. */
type DbAsset = Omit<Asset, 'attributes' | 'flex_context' | 'flex_model'> & {
  attributes: string;
  flex_context: string | null;
  flex_model: string | null;
};

const fromRow = (r: DbAsset): Asset => ({
  ...r,
  attributes: JSON.parse(r.attributes) as Record<string, unknown>,
  flex_context: JSON.parse(r.flex_context ?? '{}') as Record<string, unknown>,
  flex_model: JSON.parse(r.flex_model ?? '{}') as Record<string, unknown>,
});

/** Assets with their flex configuration. */
const assetRows = (db: Knex) =>
  db<DbAsset>('generic_asset')
    .leftJoin('generic_asset_flex', 'generic_asset_flex.asset_id', 'generic_asset.id')
    .select('generic_asset.*', 'generic_asset_flex.flex_context', 'generic_asset_flex.flex_model');

/** @returns the asset, or undefined. */
export async function getAsset(db: Knex, id: number): Promise<Asset | undefined> {
  const row = await assetRows(db).where('generic_asset.id', id).first();
  return row && fromRow(row as DbAsset);
}

/** @returns the assets of an account, or the public ones for `null`. */
export async function listAssets(db: Knex, accountId: number | null): Promise<Asset[]> {
  const q = assetRows(db).orderBy('generic_asset.id');
  if (accountId === null) q.whereNull('account_id');
  else q.where({ account_id: accountId });
  return ((await q) as DbAsset[]).map(fromRow);
}

/** @returns every asset type. */
export async function listAssetTypes(db: Knex): Promise<AssetType[]> {
  return db<AssetType>('generic_asset_type').orderBy('id');
}

/** Whether any asset has this one as its parent. */
export async function hasChildAssets(db: Knex, id: number): Promise<boolean> {
  return Boolean(await db('generic_asset').where({ parent_asset_id: id }).first('id'));
}

/** @returns the asset type, or undefined. */
export async function getAssetType(db: Knex, id: number): Promise<AssetType | undefined> {
  return db<AssetType>('generic_asset_type').where({ id }).first();
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

/**
 * The asset and its ancestors, nearest first. Parents sit in the same account, and a cycle
 * cannot be stored (an asset cannot be its own parent), but the walk still stops at a repeat.
 * @param readAsset how a parent is read (a resolution's `RowReads` reads each once).
 */
export async function assetLineage(readAsset: (id: number) => Promise<Asset | undefined>, asset: Asset): Promise<Asset[]> {
  const lineage = [asset];
  const seen = new Set([asset.id]);
  for (let parentId = asset.parent_asset_id; parentId !== null && !seen.has(parentId);) {
    const parent = await readAsset(parentId);
    if (!parent) break;
    lineage.push(parent);
    seen.add(parent.id);
    parentId = parent.parent_asset_id;
  }
  return lineage;
}

/**
 * Ids of an asset and its descendants, generation by generation.
 * @param maxDepth how many generations below the root; undefined for all.
 */
export async function descendantIds(db: Knex, rootId: number, maxDepth?: number): Promise<number[]> {
  const ids = [rootId];
  let generation = [rootId];
  for (let depth = 0; generation.length && (maxDepth === undefined || depth < maxDepth); depth++) {
    const rows = await db<{ id: number }>('generic_asset').whereIn('parent_asset_id', generation).whereNotIn('id', ids).select('id');
    generation = rows.map((r) => Number(r.id));
    ids.push(...generation);
  }
  return ids;
}

export interface AssetQuery {
  accountIds: number[];
  includePublic: boolean;
  /** Only these assets (a subtree); undefined for all. */
  ids?: number[];
  typeId?: number;
  sortBy: 'id' | 'name' | 'owner';
  sortDir: 'asc' | 'desc';
  /** 1-based page of `perPage` assets; undefined for all. */
  page?: { page: number; perPage: number };
  /** Search terms, all to be found in the asset's name or its account's name (any case), or as a prefix of its id. */
  terms?: string[];
}

/** A LIKE pattern matching `text` literally. */
const literal = (text: string) => text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`);

/** @returns the matching assets (one page of them when asked), how many there are without the search terms and with them. */
export async function queryAssets(db: Knex, query: AssetQuery): Promise<{ assets: Asset[]; total: number; filtered: number }> {
  const q = db('generic_asset').where((w) => {
    w.whereIn('account_id', query.accountIds);
    if (query.includePublic) w.orWhereNull('account_id');
  });
  if (query.ids) q.whereIn('generic_asset.id', query.ids);
  if (query.typeId !== undefined) q.where({ generic_asset_type_id: query.typeId });
  const count = async () => Number((await q.clone().count<{ n: number | string }[]>({ n: '*' }))[0].n);
  const total = await count();
  for (const term of query.terms ?? []) {
    const like = `%${literal(term)}%`;
    q.where((w) => {
      w.whereRaw("LOWER(generic_asset.name) LIKE ? ESCAPE '\\'", [like]).orWhereExists((e) =>
        e
          .select(db.raw('1'))
          .from('account')
          .whereRaw('account.id = generic_asset.account_id')
          .andWhereRaw("LOWER(account.name) LIKE ? ESCAPE '\\'", [like]),
      );
      if (/^\d+$/.test(term)) w.orWhereRaw('CAST(generic_asset.id AS TEXT) LIKE ?', [`${term}%`]);
    });
  }
  const filtered = query.terms?.length ? await count() : total;
  const sortColumn = query.sortBy === 'owner' ? 'account_id' : query.sortBy;
  q.orderBy(`generic_asset.${sortColumn}`, query.sortDir).orderBy('generic_asset.id', query.sortDir);
  if (query.page) q.offset((query.page.page - 1) * query.page.perPage).limit(query.page.perPage);
  const rows = (await q
    .leftJoin('generic_asset_flex', 'generic_asset_flex.asset_id', 'generic_asset.id')
    .select('generic_asset.*', 'generic_asset_flex.flex_context', 'generic_asset_flex.flex_model')) as DbAsset[];
  return { assets: rows.map(fromRow), total, filtered };
}

/** @returns whether another asset of the account already has this external id. */
export async function externalIdTaken(
  db: Knex,
  props: { externalId: string; accountId: number | null; exceptId?: number },
): Promise<boolean> {
  const q = db('generic_asset').where({ external_id: props.externalId });
  if (props.accountId === null) q.whereNull('account_id');
  else q.andWhere({ account_id: props.accountId });
  if (props.exceptId !== undefined) q.whereNot({ id: props.exceptId });
  return Boolean(await q.first('id'));
}

/** @returns by asset id, the asset's name and its account's (empty for public assets). */
export async function assetAndAccountNames(db: Knex, assetIds: number[]): Promise<Map<number, [string, string]>> {
  const rows = await db('generic_asset as a')
    .leftJoin('account as c', 'c.id', 'a.account_id')
    .whereIn('a.id', assetIds)
    .select<{ id: number; name: string; account: string | null }[]>('a.id', 'a.name', 'c.name as account');
  return new Map(rows.map((r) => [Number(r.id), [r.name, r.account ?? '']]));
}
