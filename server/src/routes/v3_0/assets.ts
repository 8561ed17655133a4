import { createHash } from 'node:crypto';
import { z } from 'zod';
import { fieldError, forbidden, unprocessable } from '../../errors.ts';
import { assetCreate, assetPatch } from '../../contracts/resources.ts';
import { boolText, intText } from '../../contracts/fields.ts';
import { parseInput } from '../../http/validate.ts';
import type { RouteSpec } from '../../http/routes.ts';
import type { AppContext } from '../../http/context.ts';
import { authorize, can } from '../../policies/access.ts';
import { presentAsset } from '../../presenters/index.ts';
import { getAccount } from '../../store/accounts.ts';
import * as assets from '../../store/assets.ts';
import { scheduledSensors, type JobSpec } from '../../scheduling/jobSpec.ts';
import { jobStatusMessage } from './jobs.ts';
import { getSensor, listSensors } from '../../store/sensors.ts';
import { accountAccess, idParams, loadAccount, loadAsset, ownedAccess, readableAccount, readableAccounts } from './load.ts';

const listQuery = z.object({
  account_id: intText.optional(),
  account: intText.optional(),
  all_accessible: boolText.optional(),
  include_public: boolText.optional(),
  root: intText.optional(),
  depth: intText.pipe(z.number().min(0)).optional(),
  asset_type: intText.optional(),
  page: intText.pipe(z.number().min(1)).optional(),
  per_page: intText.pipe(z.number().min(1).max(10_000)).optional(),
  'per-page': intText.pipe(z.number().min(1).max(10_000)).optional(),
  sort_by: z.enum(['id', 'name', 'owner']).optional(),
  'sort-by': z.enum(['id', 'name', 'owner']).optional(),
  sort_dir: z.enum(['asc', 'desc']).optional(),
  'sort-dir': z.enum(['asc', 'desc']).optional(),
  fields: z.string().max(1000).optional(),
});

/** The dialect asset bodies are written in. */
const dialectOf = (ctx: AppContext) => ctx.services.config.apiCompat;

/**
 * GET /assets: the caller's (or one readable) account's assets, as 0.18 lists them; the 1.0
 * query parameters (all accessible accounts, public assets, a subtree, pages, order, fields)
 * are honoured in both dialects, since no 0.18 client sends them.
 */
async function listAssetsHandler(ctx: AppContext): Promise<void> {
  const q = parseInput(listQuery, ctx.query, 'query');
  const accountId = q.account ?? q.account_id;
  const { db } = ctx.services;
  let root: assets.Asset | undefined;
  if (q.root !== undefined) {
    root = await assets.getAsset(db, q.root);
    if (!root || !can(ctx.state.user!, 'read', await ownedAccess(ctx, 'asset', root.account_id))) {
      throw fieldError('query', 'root', `No asset found with id ${q.root}.`);
    }
  }
  const everything = accountId === undefined && (q.all_accessible || root !== undefined);
  const accountIds = everything ? (await readableAccounts(ctx)).map((a) => a.id) : [(await readableAccount(ctx, accountId)).id];
  const perPage = q['per-page'] ?? q.per_page ?? 10;
  const { assets: found, total } = await assets.queryAssets(db, {
    accountIds,
    includePublic: accountId === undefined && Boolean(q.include_public || everything),
    ids: root ? await assets.descendantIds(db, root.id, q.depth) : undefined,
    typeId: q.asset_type,
    sortBy: q['sort-by'] ?? q.sort_by ?? 'id',
    sortDir: q['sort-dir'] ?? q.sort_dir ?? 'asc',
    page: q.page === undefined ? undefined : { page: q.page, perPage },
  });
  const fields = q.fields?.split('|').filter((f) => f.trim());
  const data = found.map((a) => {
    const body: Record<string, unknown> = presentAsset(a, dialectOf(ctx));
    return fields?.length ? Object.fromEntries(Object.entries(body).filter(([k]) => fields.includes(k))) : body;
  });
  ctx.body = q.page === undefined ? data : { data, 'num-records': total, 'filtered-records': total };
}

/** `sensors_to_show` inside asset attributes must name existing sensors. */
async function checkSensorsToShow(ctx: AppContext, attributes: Record<string, unknown> | undefined): Promise<void> {
  const value = attributes?.sensors_to_show;
  if (value === undefined) return;
  const fail = (message: string) => fieldError('json', 'attributes', message);
  if (!Array.isArray(value)) throw fail('sensors_to_show should be a list.');
  const ids = value.flatMap((v: unknown) => (Array.isArray(v) ? v : [v]));
  if (!ids.every((v) => Number.isSafeInteger(v))) {
    throw fail('sensors_to_show should only contain sensor IDs (integers) or lists thereof.');
  }
  for (const sensorId of ids as number[]) {
    if (!(await getSensor(ctx.services.db, sensorId))) throw fail(`No sensor found with id ${sensorId}.`);
  }
}

/** Attributes with 1.0's top-level `sensors_to_show` folded in, where Flexsite keeps it. */
const withSensorsToShow = (attributes: Record<string, unknown>, sensorsToShow: unknown) =>
  sensorsToShow === undefined ? attributes : { ...attributes, sensors_to_show: sensorsToShow };

async function checkType(ctx: AppContext, typeId: number | undefined): Promise<void> {
  if (typeId !== undefined && !(await assets.getAssetType(ctx.services.db, typeId))) {
    throw fieldError('json', 'generic_asset_type_id', `GenericAssetType with id ${typeId} doesn't exist.`);
  }
}

/**
 * A parent must exist, be visible to the caller and sit in the same account: deleting a parent
 * deletes its children, which must not reach into another account.
 */
async function checkParent(ctx: AppContext, parentId: number | null | undefined, accountId: number | null): Promise<void> {
  if (!parentId) return;
  const parent = await assets.getAsset(ctx.services.db, parentId);
  if (!parent || !can(ctx.state.user!, 'read', await ownedAccess(ctx, 'asset', parent.account_id))) {
    throw fieldError('json', 'parent_asset_id', `GenericAsset with id ${parentId} doesn't exist.`);
  }
  if (parent.account_id !== accountId) {
    throw fieldError('json', 'parent_asset_id', 'A parent asset must belong to the same account.');
  }
}

async function checkNameFree(
  ctx: AppContext,
  props: { name: string; parentId: number | null; accountId: number | null; exceptId?: number },
): Promise<void> {
  if (await assets.assetNameTaken(ctx.services.db, props)) {
    throw fieldError(
      'json',
      'name',
      `An asset with the name '${props.name}' already exists under parent asset with id=${props.parentId}.`,
    );
  }
}

export const assetRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/assets',
    summary: 'Download asset list',
    request: { query: listQuery },
    handler: listAssetsHandler,
  },
  {
    method: 'GET',
    path: '/assets/public',
    summary: 'Return all public assets.',
    async handler(ctx) {
      ctx.body = (await assets.listAssets(ctx.services.db, null)).map((a) => presentAsset(a, dialectOf(ctx)));
    },
  },
  {
    method: 'GET',
    path: '/assets/types',
    summary: 'Get list of available asset types',
    async handler(ctx) {
      ctx.body = await assets.listAssetTypes(ctx.services.db);
    },
  },
  {
    method: 'POST',
    path: '/assets',
    summary: 'Create a new asset',
    request: { json: assetCreate },
    responses: { 201: 'the new asset' },
    async handler(ctx) {
      const user = ctx.state.user!;
      // The reference checks create-children on the caller's own account before reading the body.
      const own = await loadAccount(ctx, user.account_id);
      authorize(user, 'create-children', accountAccess(own));
      const body = parseInput(assetCreate, ctx.request.body, 'json');
      const isAdmin = user.roles.includes('admin');
      const accountId = body.account_id ?? null;
      if (accountId === null && !isAdmin) throw forbidden();
      if (accountId !== null) {
        if (!isAdmin && accountId !== user.account_id) {
          throw fieldError('json', 'account_id', 'User is not allowed to create assets for this account.');
        }
        if (!(await getAccount(ctx.services.db, accountId))) {
          throw fieldError('json', 'account_id', `Account with Id ${accountId} doesn't exist.`);
        }
      }
      await checkType(ctx, body.generic_asset_type_id);
      await checkParent(ctx, body.parent_asset_id, accountId);
      const attributes = withSensorsToShow(body.attributes ?? {}, body.sensors_to_show);
      await checkSensorsToShow(ctx, attributes);
      const parentId = body.parent_asset_id ?? null;
      await checkNameFree(ctx, { name: body.name, parentId, accountId });
      const asset = await ctx.services.db.transaction((trx) =>
        assets.createAsset(trx, {
          name: body.name,
          latitude: body.latitude ?? null,
          longitude: body.longitude ?? null,
          generic_asset_type_id: body.generic_asset_type_id,
          account_id: accountId,
          parent_asset_id: parentId,
          attributes,
          flex_context: body.flex_context,
          flex_model: body.flex_model,
        }),
      );
      ctx.status = 201;
      ctx.body = presentAsset(asset, dialectOf(ctx));
    },
  },
  {
    method: 'GET',
    path: '/assets/:id',
    summary: 'Get an asset',
    request: { params: idParams },
    async handler(ctx) {
      const asset = await loadAsset(ctx);
      authorize(ctx.state.user!, 'read', await ownedAccess(ctx, 'asset', asset.account_id));
      ctx.body = { ...presentAsset(asset, dialectOf(ctx)), status: 200 };
    },
  },
  {
    method: 'GET',
    path: '/assets/:id/jobs',
    summary: 'Get all background jobs related to an asset.',
    request: { params: idParams },
    async handler(ctx) {
      const asset = await loadAsset(ctx);
      authorize(ctx.state.user!, 'read', await ownedAccess(ctx, 'asset', asset.account_id));
      const { db, jobs } = ctx.services;
      const own = new Map((await listSensors(db, { assetId: asset.id })).map((s) => [s.id, s]));
      // The queue keeps jobs for a while only (FLEXSITE_PLANNING_TTL), as FlexMeasures' Redis does.
      const recent = asset.account_id === null ? [] : await jobs.list({ accountId: asset.account_id, limit: 1000 });
      const listed = recent.flatMap((job) => {
        const spec = (job.args as { spec?: JobSpec } | null)?.spec;
        const sensorId = [job.sensorId, ...(spec ? scheduledSensors(spec) : [])].find((id) => id !== null && own.has(id));
        if (sensorId === undefined || sensorId === null) return [];
        const metadata = JSON.stringify({ job_id: job.id, queue: job.queue, sensor_id: sensorId, created_at: job.createdAt });
        return [
          {
            job_id: job.id,
            metadata,
            queue: job.queue,
            asset_or_sensor_type: 'sensor',
            entity: `sensor: ${own.get(sensorId)!.name} (Id: ${sensorId})`,
            status: job.status,
            err: job.status === 'failed' ? jobStatusMessage(job) : null,
            enqueued_at: new Date(job.createdAt).toISOString(),
            metadata_hash: createHash('sha256').update(metadata).digest('hex'),
          },
        ];
      });
      ctx.body = { jobs: listed, redis_connection_err: null, status: 200 };
    },
  },
  {
    method: 'PATCH',
    path: '/assets/:id',
    summary: 'Update an asset',
    request: { params: idParams, json: assetPatch },
    async handler(ctx) {
      const body = parseInput(assetPatch, ctx.request.body, 'json');
      const asset = await loadAsset(ctx);
      authorize(ctx.state.user!, 'update', await ownedAccess(ctx, 'asset', asset.account_id));
      await checkType(ctx, body.generic_asset_type_id);
      if (body.parent_asset_id === asset.id) {
        throw unprocessable('json', { parent_asset_id: ['An asset cannot be its own parent.'] });
      }
      await checkParent(ctx, body.parent_asset_id, asset.account_id);
      if (body.parent_asset_id && (await assets.descendantIds(ctx.services.db, asset.id)).includes(body.parent_asset_id)) {
        // Flex-context inheritance walks up the tree; a cycle would make an asset its own ancestor.
        throw fieldError('json', 'parent_asset_id', 'A descendant asset cannot become the parent.');
      }
      const { sensors_to_show, ...changes } = body;
      const attributes = sensors_to_show === undefined ? body.attributes : withSensorsToShow(body.attributes ?? asset.attributes, sensors_to_show);
      await checkSensorsToShow(ctx, attributes);
      if (body.name !== undefined || body.parent_asset_id !== undefined) {
        await checkNameFree(ctx, {
          name: body.name ?? asset.name,
          parentId: body.parent_asset_id === undefined ? asset.parent_asset_id : body.parent_asset_id,
          accountId: asset.account_id,
          exceptId: asset.id,
        });
      }
      await ctx.services.db.transaction((trx) => assets.updateAsset(trx, asset.id, { ...changes, attributes }));
      ctx.body = { ...presentAsset((await assets.getAsset(ctx.services.db, asset.id))!, dialectOf(ctx)), status: 200 };
    },
  },
  {
    method: 'DELETE',
    path: '/assets/:id',
    summary: 'Delete an asset',
    request: { params: idParams },
    responses: { 204: 'deleted, with its sensors and their data' },
    async handler(ctx) {
      const asset = await loadAsset(ctx);
      authorize(ctx.state.user!, 'delete', await ownedAccess(ctx, 'asset', asset.account_id));
      await ctx.services.db.transaction((trx) => assets.deleteAsset(trx, asset.id));
      ctx.status = 204;
    },
  },
];
