import type { Knex } from 'knex';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { fieldError, forbidden, unprocessable } from '../../errors.ts';
import { assetCreate, assetPatch } from '../../contracts/resources.ts';
import { boolText, intText } from '../../contracts/fields.ts';
import { searchTerms } from '../../domain/searchTerms.ts';
import * as wire from '../../contracts/responses.ts';
import { route } from '../../http/routes.ts';
import { authorize, can } from '../../policies/access.ts';
import { mayOwnAssetsIn } from '../../policies/roles.ts';
import { presentAsset } from '../../presenters/index.ts';
import { getAccount } from '../../store/accounts.ts';
import * as assets from '../../store/assets.ts';
import { scheduledSensors } from '../../scheduling/jobSpec.ts';
import { attributeReferences, checkStoredAttributes, checkStoredValues } from '../../scheduling/storedValues.ts';
import { jobStatusMessage } from './jobs.ts';
import { getSensor, listSensors } from '../../store/sensors.ts';
import type { User } from '../../store/users.ts';
import type { AppContext } from '../../http/context.ts';
import { accountAccess, accountById, assetById, idParams, listedAccount } from '../load.ts';
import { assetAccess, flexReferences, type AccountReferences } from '../../policies/references.ts';
import { authorizeSchedulerChoice } from '../../policies/schedulerChoice.ts';
import { readableAccounts } from '../../policies/visibility.ts';

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
  /** FlexMeasures 1.0 (v3.0-31): search terms, each in the name or account name, or an id prefix. */
  filter: z.string().max(1000).optional(),
});

/** The dialect asset bodies are written in. */
const dialectOf = (ctx: AppContext) => ctx.services.config.apiCompat;

/** Attributes with 1.0's top-level `sensors_to_show` folded in, where Flexsite keeps it. */
const withSensorsToShow = (attributes: Record<string, unknown>, sensorsToShow: unknown) =>
  sensorsToShow === undefined ? attributes : { ...attributes, sensors_to_show: sensorsToShow };

const presentOne = (a: assets.Asset, ctx: AppContext) => ({ ...presentAsset(a, dialectOf(ctx)), status: 200 });

/** `sensors_to_show` inside asset attributes must name existing sensors. */
async function checkSensorsToShow(db: Knex, attributes: Record<string, unknown> | undefined): Promise<void> {
  const value = attributes?.sensors_to_show;
  if (value === undefined) return;
  const fail = (message: string) => fieldError('json', 'attributes', message);
  if (!Array.isArray(value)) throw fail('sensors_to_show should be a list.');
  const ids = value.flatMap((v: unknown) => (Array.isArray(v) ? v : [v]));
  if (!ids.every((v) => Number.isSafeInteger(v))) {
    throw fail('sensors_to_show should only contain sensor IDs (integers) or lists thereof.');
  }
  for (const sensorId of ids as number[]) {
    if (!(await getSensor(db, sensorId))) throw fail(`No sensor found with id ${sensorId}.`);
  }
}

async function checkType(db: Knex, typeId: number | undefined): Promise<void> {
  if (typeId !== undefined && !(await assets.getAssetType(db, typeId))) {
    throw fieldError('json', 'generic_asset_type_id', `GenericAssetType with id ${typeId} doesn't exist.`);
  }
}

/**
 * A parent must exist, be visible to the caller and sit in the same account: deleting a parent
 * deletes its children, which must not reach into another account.
 */
async function checkParent(db: Knex, user: User, parentId: number | null | undefined, accountId: number | null): Promise<void> {
  if (!parentId) return;
  const parent = await assets.getAsset(db, parentId);
  if (!parent || !can(user, 'read', await assetAccess(db, parent.account_id))) {
    throw fieldError('json', 'parent_asset_id', `GenericAsset with id ${parentId} doesn't exist.`);
  }
  if (parent.account_id !== accountId) {
    throw fieldError('json', 'parent_asset_id', 'A parent asset must belong to the same account.');
  }
}

async function checkNameFree(
  db: Knex,
  props: { name: string; parentId: number | null; accountId: number | null; exceptId?: number },
): Promise<void> {
  if (await assets.assetNameTaken(db, props)) {
    throw fieldError('json', 'name', `An asset with the name '${props.name}' already exists under parent asset with id=${props.parentId}.`);
  }
}

/** 1.0's database keeps external ids unique per account; Flexsite answers a clash with a 422. */
async function checkExternalIdFree(
  db: Knex,
  props: { externalId: string | undefined; accountId: number | null; exceptId?: number },
): Promise<void> {
  if (props.externalId === undefined || !(await assets.externalIdTaken(db, { ...props, externalId: props.externalId }))) return;
  throw fieldError('json', 'external_id', `An asset with external_id '${props.externalId}' already exists in this account.`);
}

/**
 * Every sensor and asset that flex configuration written to an asset names (the 1.0 fields and the
 * 0.18 attributes), authorized when written against the writer and the asset's account: jobs run
 * on it later for that account, whoever starts them.
 */
const storedFlexReferences = (
  body: { flex_model?: unknown; flex_context?: unknown; attributes?: Record<string, unknown> },
  accountId: number | null,
): AccountReferences => ({
  refs: [
    ...flexReferences(body.flex_model, 'flex_model'),
    ...flexReferences(body.flex_context, 'flex_context'),
    ...flexReferences(body.attributes?.['flex-model'], 'attributes.flex-model'),
    ...flexReferences(body.attributes?.['flex-context'], 'attributes.flex-context'),
    ...attributeReferences(body.attributes),
  ],
  usableBy: accountId,
});

/** FlexMeasures 1.0's `fields` (v3.0-29): the asset fields to show, separated by `|`. */
const fieldsOf = (text: string | undefined) => text?.split('|').filter((f) => f.trim());
const publicQuery = z.object({ fields: z.string().max(1000).optional() });

/** An asset body with only the fields asked for (all when none are). */
const onlyFields = (body: Record<string, unknown>, fields: string[] | undefined) =>
  fields?.length ? Object.fromEntries(Object.entries(body).filter(([k]) => fields.includes(k))) : body;

export const assetRoutes = [
  /**
   * GET /assets: the caller's (or one readable) account's assets, as 0.18 lists them; the 1.0
   * query parameters (all accessible accounts, public assets, a subtree, pages, order, fields)
   * are honoured in both dialects, since no 0.18 client sends them.
   */
  route({
    method: 'GET',
    path: '/assets',
    summary: 'Download asset list',
    request: { query: listQuery },
    async load({ db, user, query: q }) {
      let root: assets.Asset | undefined;
      if (q.root !== undefined) {
        root = await assets.getAsset(db, q.root);
        // An asset the caller may not read is as unknown as one that does not exist.
        if (!root || !can(user, 'read', await assetAccess(db, root.account_id))) {
          throw fieldError('query', 'root', `No asset found with id ${q.root}.`);
        }
      }
      const accountId = q.account ?? q.account_id;
      const everything = accountId === undefined && (q.all_accessible || root !== undefined);
      const accounts = everything
        ? (await readableAccounts(db, user)).map((a) => ({ value: a, permission: 'read' as const, on: accountAccess(a) }))
        : [await listedAccount(db, user, accountId)];
      return { accounts, root: root && { value: root, permission: 'read' as const, on: await assetAccess(db, root.account_id) } };
    },
    async command({ db, query: q, loaded: { accounts, root } }) {
      const accountId = q.account ?? q.account_id;
      const perPage = q['per-page'] ?? q.per_page ?? 10;
      const found = await assets.queryAssets(db, {
        accountIds: accounts.map((a) => a.id),
        includePublic: accountId === undefined && Boolean(q.include_public || q.all_accessible || root !== undefined),
        ids: root ? await assets.descendantIds(db, root.id, q.depth) : undefined,
        typeId: q.asset_type,
        sortBy: q['sort-by'] ?? q.sort_by ?? 'id',
        sortDir: q['sort-dir'] ?? q.sort_dir ?? 'asc',
        page: q.page === undefined ? undefined : { page: q.page, perPage },
        terms: q.filter === undefined ? undefined : searchTerms(q.filter),
      });
      return { ...found, fields: fieldsOf(q.fields), paged: q.page !== undefined };
    },
    response: {
      schema: z.union([
        z.array(wire.assetFields),
        z.looseObject({ data: z.array(wire.assetFields), 'num-records': z.number(), 'filtered-records': z.number() }),
      ]),
      present({ assets: found, total, filtered, fields, paged }, ctx) {
        const data = found.map((a) => onlyFields(presentAsset(a, dialectOf(ctx)), fields));
        return paged ? { data, 'num-records': total, 'filtered-records': filtered } : data;
      },
    },
  }),
  route({
    method: 'GET',
    path: '/assets/public',
    summary: 'Return all public assets.',
    request: { query: publicQuery },
    command: async ({ db, query }) => ({ list: await assets.listAssets(db, null), fields: fieldsOf(query.fields) }),
    response: {
      schema: z.array(wire.assetFields),
      present: ({ list, fields }, ctx) => list.map((a) => onlyFields(presentAsset(a, dialectOf(ctx)), fields)),
    },
  }),
  route({
    method: 'GET',
    path: '/assets/types',
    summary: 'Get list of available asset types',
    command: ({ db }) => assets.listAssetTypes(db),
    response: { schema: z.array(wire.assetType) },
  }),
  route({
    method: 'POST',
    path: '/assets',
    summary: 'Create a new asset',
    // The reference checks create-children on the caller's own account before reading the body.
    guard: async ({ ctx, user }) => {
      const own = await accountById(ctx.services.db, user.account_id, 'create-children');
      authorize(user, own.permission, accountAccess(own.value));
    },
    request: { json: assetCreate },
    references: ({ body }) => storedFlexReferences(body, body.account_id ?? null),
    transaction: true,
    async command({ ctx, db, user, body }) {
      const accountId = body.account_id ?? null;
      if (accountId === null && !mayOwnAssetsIn(user, null)) throw forbidden();
      if (accountId !== null) {
        if (!mayOwnAssetsIn(user, accountId))
          throw fieldError('json', 'account_id', 'User is not allowed to create assets for this account.');
        if (!(await getAccount(db, accountId))) throw fieldError('json', 'account_id', `Account with Id ${accountId} doesn't exist.`);
      }
      await checkType(db, body.generic_asset_type_id);
      await checkParent(db, user, body.parent_asset_id, accountId);
      const attributes = withSensorsToShow(body.attributes ?? {}, body.sensors_to_show);
      authorizeSchedulerChoice(user, ctx.services.schedulerPlugins, {}, attributes);
      await checkSensorsToShow(db, attributes);
      const parentId = body.parent_asset_id ?? null;
      await checkNameFree(db, { name: body.name, parentId, accountId });
      await checkExternalIdFree(db, { externalId: body.external_id, accountId });
      await checkStoredValues(db, body.flex_model, 'flex_model');
      await checkStoredValues(db, body.flex_context, 'flex_context');
      await checkStoredAttributes(db, body.attributes);
      return assets.createAsset(db, {
        description: body.description ?? null,
        external_id: body.external_id ?? null,
        name: body.name,
        latitude: body.latitude ?? null,
        longitude: body.longitude ?? null,
        generic_asset_type_id: body.generic_asset_type_id,
        account_id: accountId,
        parent_asset_id: parentId,
        attributes,
        flex_context: body.flex_context,
        flex_model: body.flex_model,
      });
    },
    response: { status: 201, schema: wire.asset, present: (a, ctx) => presentAsset(a, dialectOf(ctx)), description: 'the new asset' },
  }),
  route({
    method: 'GET',
    path: '/assets/:id',
    summary: 'Get an asset',
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: async ({ loaded }) => loaded.asset,
    response: { schema: wire.assetAnswer, present: presentOne },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/jobs',
    summary: 'Get all background jobs related to an asset.',
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    async command({ ctx, db, loaded: { asset } }) {
      const own = new Map((await listSensors(db, { assetId: asset.id })).map((s) => [s.id, s]));
      // The queue keeps jobs for a while only (FLEXSITE_PLANNING_TTL), as FlexMeasures' Redis does.
      const recent = asset.account_id === null ? [] : await ctx.services.jobs.list({ accountId: asset.account_id, limit: 1000 });
      const listed = recent.flatMap((job) => {
        const spec = job.queue === 'scheduling' ? job.args.spec : undefined;
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
      return { jobs: listed, redis_connection_err: null, status: 200 as const };
    },
    response: { schema: wire.assetJobs },
  }),
  route({
    method: 'PATCH',
    path: '/assets/:id',
    summary: 'Update an asset',
    request: { params: idParams, json: assetPatch },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'update') }),
    references: ({ body, loaded: { asset } }) => storedFlexReferences(body, asset.account_id),
    transaction: true,
    async command({ ctx, db, user, body, loaded: { asset } }) {
      await checkType(db, body.generic_asset_type_id);
      if (body.parent_asset_id === asset.id) throw unprocessable('json', { parent_asset_id: ['An asset cannot be its own parent.'] });
      await checkParent(db, user, body.parent_asset_id, asset.account_id);
      if (body.parent_asset_id && (await assets.descendantIds(db, asset.id)).includes(body.parent_asset_id)) {
        // Flex-context inheritance walks up the tree; a cycle would make an asset its own ancestor.
        throw fieldError('json', 'parent_asset_id', 'A descendant asset cannot become the parent.');
      }
      const { sensors_to_show, ...changes } = body;
      const attributes =
        sensors_to_show === undefined ? body.attributes : withSensorsToShow(body.attributes ?? asset.attributes, sensors_to_show);
      authorizeSchedulerChoice(user, ctx.services.schedulerPlugins, asset.attributes, attributes);
      await checkSensorsToShow(db, attributes);
      if (body.name !== undefined || body.parent_asset_id !== undefined) {
        await checkNameFree(db, {
          name: body.name ?? asset.name,
          parentId: body.parent_asset_id === undefined ? asset.parent_asset_id : body.parent_asset_id,
          accountId: asset.account_id,
          exceptId: asset.id,
        });
      }
      await checkExternalIdFree(db, { externalId: body.external_id, accountId: asset.account_id, exceptId: asset.id });
      await checkStoredValues(db, body.flex_model, 'flex_model');
      await checkStoredValues(db, body.flex_context, 'flex_context');
      await checkStoredAttributes(db, body.attributes);
      await assets.updateAsset(db, asset.id, { ...changes, attributes });
      return (await assets.getAsset(db, asset.id))!;
    },
    response: { schema: wire.assetAnswer, present: presentOne },
  }),
  route({
    method: 'DELETE',
    path: '/assets/:id',
    summary: 'Delete an asset',
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'delete') }),
    transaction: true,
    command: ({ db, loaded }) => assets.deleteAsset(db, loaded.asset.id),
    response: { status: 204, schema: null, description: 'deleted, with its sensors and their data' },
  }),
];
