import { z } from 'zod';
import { fieldError, forbidden, unprocessable } from '../../errors.ts';
import { assetCreate, assetPatch } from '../../contracts/resources.ts';
import { intText } from '../../contracts/fields.ts';
import { parseInput } from '../../http/validate.ts';
import type { RouteSpec } from '../../http/routes.ts';
import type { AppContext } from '../../http/context.ts';
import { authorize, can } from '../../policies/access.ts';
import { presentAsset } from '../../presenters/index.ts';
import { getAccount } from '../../store/accounts.ts';
import * as assets from '../../store/assets.ts';
import { getSensor } from '../../store/sensors.ts';
import { accountAccess, idParams, loadAccount, loadAsset, ownedAccess, readableAccount } from './load.ts';

const listQuery = z.object({ account_id: intText.optional() });

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
    async handler(ctx) {
      const { account_id } = parseInput(listQuery, ctx.query, 'query');
      const account = await readableAccount(ctx, account_id);
      ctx.body = (await assets.listAssets(ctx.services.db, account.id)).map(presentAsset);
    },
  },
  {
    method: 'GET',
    path: '/assets/public',
    summary: 'Return all public assets.',
    async handler(ctx) {
      ctx.body = (await assets.listAssets(ctx.services.db, null)).map(presentAsset);
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
      await checkSensorsToShow(ctx, body.attributes);
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
          attributes: body.attributes ?? {},
        }),
      );
      ctx.status = 201;
      ctx.body = presentAsset(asset);
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
      ctx.body = { ...presentAsset(asset), status: 200 };
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
      await checkSensorsToShow(ctx, body.attributes);
      if (body.name !== undefined || body.parent_asset_id !== undefined) {
        await checkNameFree(ctx, {
          name: body.name ?? asset.name,
          parentId: body.parent_asset_id === undefined ? asset.parent_asset_id : body.parent_asset_id,
          accountId: asset.account_id,
          exceptId: asset.id,
        });
      }
      await ctx.services.db.transaction((trx) => assets.updateAsset(trx, asset.id, body));
      ctx.body = { ...presentAsset((await assets.getAsset(ctx.services.db, asset.id))!), status: 200 };
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
