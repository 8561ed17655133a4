import { createHash } from 'node:crypto';
import { z } from 'zod';
import { createAsset, deleteAsset, updateAsset } from '../../commands/assets.ts';
import { fieldError, forbidden } from '../../errors.ts';
import { assetCreate, assetPatch } from '../../contracts/resources.ts';
import { boolText, intText } from '../../contracts/fields.ts';
import { searchTerms } from '../../domain/searchTerms.ts';
import * as wire from '../../contracts/responses.ts';
import { copyAsset } from '../../commands/copyAsset.ts';
import { route } from '../../http/routes.ts';
import { authorize, can } from '../../policies/access.ts';
import { presentAsset } from '../../presenters/index.ts';
import * as assets from '../../store/assets.ts';
import { scheduledSensors } from '../../scheduling/jobReferences.ts';
import { jobStatusMessage } from './jobs.ts';
import { listSensors } from '../../store/sensors.ts';
import type { AppContext } from '../../http/context.ts';
import { accountAccess, accountById, assetById, idParams, listedAccount } from '../load.ts';
import { assetAccess } from '../../policies/references.ts';
import { mayOwnAssetsIn } from '../../policies/roles.ts';
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
/** Where POST /assets/<id>/copy puts the copy (FlexMeasures 1.0). */
const copyQuery = z.object({ account: intText.optional(), parent: intText.optional() });

const dialectOf = (ctx: AppContext) => ctx.services.config.apiCompat;

const presentOne = (a: assets.Asset, ctx: AppContext) => ({ ...presentAsset(a, dialectOf(ctx)), status: 200 });

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
    transaction: true,
    command: ({ context, principal, body }) => createAsset(context, principal, body),
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
    transaction: true,
    command: ({ context, principal, body, loaded: { asset } }) => updateAsset(context, principal, { asset, changes: body }),
    response: { schema: wire.assetAnswer, present: presentOne },
  }),
  route({
    method: 'DELETE',
    path: '/assets/:id',
    summary: 'Delete an asset',
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'delete') }),
    transaction: true,
    command: ({ context, principal, loaded: { asset } }) => deleteAsset(context, principal, { asset }),
    response: { status: 204, schema: null, description: 'deleted, with its sensors and their data' },
  }),
  route({
    method: 'POST',
    path: '/assets/:id/copy',
    summary: 'Copy an asset to a target account and/or parent.',
    request: { params: idParams, query: copyQuery },
    // The copy's place, 1.0's rules: given parent, else the given account's top level, else the original's place.
    async load({ db, params, query }) {
      const source = await assetById(db, params.id, 'read');
      const parentId = query.parent ?? (query.account === undefined ? source.value.parent_asset_id : null);
      const missingParent = () => fieldError('query', 'parent', `No asset found with id ${query.parent}.`);
      // Creating under a parent needs create-children on it, at the top level on the account (its admins).
      const parent = parentId === null ? undefined : await assetById(db, parentId, 'create-children', missingParent);
      const accountId = query.account ?? (parent ? parent.value.account_id : source.value.account_id);
      const account = parent || accountId === null ? undefined : await accountById(db, accountId, 'create-children');
      return { asset: source, parent, account };
    },
    check({ user, query, loaded: { asset, parent, account } }) {
      const accountId = account?.id ?? (query.account === undefined ? (parent?.account_id ?? asset.account_id) : query.account);
      // A public top-level copy is a new public asset: platform admins only.
      if (accountId === null && !parent && !mayOwnAssetsIn(user, null)) throw forbidden();
      // As everywhere in Flexsite (1.0 allows it here): a child lives in its parent's account.
      if (parent && parent.account_id !== accountId) throw fieldError('query', 'parent', 'A parent asset must belong to the same account.');
      return { accountId, parentId: parent?.id ?? null };
    },
    transaction: true,
    async command({ context, principal, query, loaded: { asset }, checked: target }) {
      const copy = await copyAsset(context, principal, { asset, target });
      const to = [
        query.account !== undefined && `to account ${copy.account_id}`,
        query.parent !== undefined && `${query.account !== undefined ? 'under parent' : 'to parent asset'} ${copy.parent_asset_id}`,
      ].filter(Boolean);
      return { message: `Successfully copied asset ${asset.id}${to.length ? ` ${to.join(' ')}` : ''}.`, asset: copy.id };
    },
    response: { status: 201, schema: z.object({ message: z.string(), asset: z.number() }), description: 'the copy' },
  }),
];
