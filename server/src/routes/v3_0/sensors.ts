import type { Knex } from 'knex';
import { z } from 'zod';
import { fieldError } from '../../errors.ts';
import { sensorCreate, sensorPatch } from '../../contracts/resources.ts';
import { DateTime } from 'luxon';
import { awareDateTime, boolText, intText } from '../../contracts/fields.ts';
import { formatStart } from '../../domain/time.ts';
import { searchTerms } from '../../domain/searchTerms.ts';
import { sensorStats, type SourceStats } from '../../store/sensorStats.ts';
import * as wire from '../../contracts/responses.ts';
import { buildEntityAddress } from '../../domain/entityAddress.ts';
import type { AppContext } from '../../http/context.ts';
import { createSensor, deleteSensor, updateSensor } from '../../commands/sensors.ts';
import { route } from '../../http/routes.ts';
import { presentSensor } from '../../presenters/index.ts';
import * as assets from '../../store/assets.ts';
import * as sensors from '../../store/sensors.ts';
import { listedAccountIds } from '../../policies/visibility.ts';
import { assetById, idParams, listedAccount, sensorById } from '../load.ts';

/** `account` and `asset` are FlexMeasures 1.0's spellings (v3.0-32) of `account_id` and `asset_id`. */
const listQuery = z.object({
  account_id: intText.optional(),
  asset_id: intText.optional(),
  account: intText.optional(),
  asset: intText.optional(),
  /** FlexMeasures 1.0: a page of `per-page` (default 10) sensors, search terms, a unit. */
  page: intText.pipe(z.number().min(1)).optional(),
  'per-page': intText.pipe(z.number().min(1).max(10_000)).optional(),
  per_page: intText.pipe(z.number().min(1).max(10_000)).optional(),
  filter: z.string().max(1000).optional(),
  unit: z.string().max(80).optional(),
  /** FlexMeasures 1.0: public assets' sensors too; a consultant's listing of their account also lists its clients'. */
  include_public_assets: boolText.optional(),
  include_consultancy_clients: boolText.optional(),
});

/**
 * The sensors matching any of 1.0's search terms: in the sensor's, its asset's or its account's
 * name (any case), or a prefix of its id.
 */
async function searched(db: Knex, list: sensors.Sensor[], filter: string): Promise<sensors.Sensor[]> {
  const terms = searchTerms(filter).map((t) => t.toLowerCase());
  if (!terms.length) return list;
  const names = await assets.assetAndAccountNames(
    db,
    list.map((s) => s.generic_asset_id),
  );
  return list.filter((s) =>
    terms.some(
      (term) =>
        s.name.toLowerCase().includes(term) ||
        (names.get(s.generic_asset_id) ?? []).some((n) => n.toLowerCase().includes(term)) ||
        (/^\d+$/.test(term) && String(s.id).startsWith(term)),
    ),
  );
}

/** The sensor JSON for this request's host. */
export const sensorJson = (ctx: AppContext, s: sensors.Sensor) =>
  presentSensor(s, buildEntityAddress(ctx.host, s.id, ctx.services.config.hostsAndAuthStart));

const statsQuery = z.object({
  event_start_time: awareDateTime.optional(),
  event_end_time: awareDateTime.optional(),
  sort: boolText.optional(),
});

/** FlexMeasures' extended source description, e.g. "Seita's naive forecaster v1.2". */
function sourceDescription(s: SourceStats): string {
  if (!s.model) return s.name;
  const kind = s.model.toLowerCase().includes(s.type.toLowerCase()) ? 'model' : s.type;
  return `${s.name}'s ${s.model} ${kind}${s.version ? ` v${s.version}` : ''}`;
}

const presentList = (list: sensors.Sensor[], ctx: AppContext) => list.map((s) => sensorJson(ctx, s));
const presentOne = (s: sensors.Sensor, ctx: AppContext) => ({ ...sensorJson(ctx, s), status: 200 });

export const sensorRoutes = [
  route({
    method: 'GET',
    path: '/sensors',
    summary: 'Download sensor list',
    request: { query: listQuery },
    load: async ({ db, user, query }) => {
      const assetId = query.asset ?? query.asset_id;
      return {
        asset: assetId === undefined ? undefined : await assetById(db, assetId, 'read'),
        account: assetId === undefined ? await listedAccount(db, user, query.account ?? query.account_id) : undefined,
      };
    },
    async command({ db, user, query, loaded }) {
      const accountIds = loaded.account && (await listedAccountIds(db, user, loaded.account, query.include_consultancy_clients ?? false));
      let list = await sensors.listSensors(
        db,
        loaded.asset ? { assetId: loaded.asset.id } : { accountIds, includePublic: query.include_public_assets ?? false },
      );
      if (query.unit !== undefined) list = list.filter((s) => s.unit === query.unit);
      if (query.filter !== undefined) list = await searched(db, list, query.filter);
      if (query.page === undefined) return { list };
      const perPage = query['per-page'] ?? query.per_page ?? 10;
      return { list: list.slice((query.page - 1) * perPage, query.page * perPage), total: list.length };
    },
    response: {
      schema: z.union([
        z.array(wire.sensor),
        z.looseObject({ data: z.array(wire.sensor), 'num-records': z.number(), 'filtered-records': z.number() }),
      ]),
      // 1.0 counts the filtered sensors under both names.
      present: ({ list, total }: { list: sensors.Sensor[]; total?: number }, ctx: AppContext) =>
        total === undefined ? presentList(list, ctx) : { data: presentList(list, ctx), 'num-records': total, 'filtered-records': total },
    },
  }),
  route({
    method: 'POST',
    path: '/sensors',
    summary: 'Create a new Sensor',
    request: { json: sensorCreate },
    load: async ({ db, body }) => ({
      asset: await assetById(db, body.generic_asset_id, 'create-children', () =>
        fieldError('json', 'generic_asset_id', `Generic asset with id ${body.generic_asset_id} doesn't exist.`),
      ),
    }),
    transaction: true,
    command: ({ context, principal, body, loaded: { asset } }) =>
      createSensor(context, principal, {
        asset,
        fields: {
          name: body.name,
          unit: body.unit,
          event_resolution_ms: body.event_resolution,
          timezone: body.timezone ?? 'UTC',
          attributes: body.attributes ?? {},
        },
      }),
    response: { status: 201, schema: wire.sensor, present: (s, ctx) => sensorJson(ctx, s), description: 'the new sensor' },
  }),
  route({
    method: 'GET',
    path: '/sensors/:id',
    summary: 'Get a sensor',
    request: { params: idParams },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'read') }),
    command: async ({ loaded }) => loaded.sensor,
    response: { schema: wire.sensorAnswer, present: presentOne },
  }),
  route({
    method: 'GET',
    path: '/sensors/:id/stats',
    summary: 'Get sensor stats',
    request: { params: idParams, query: statsQuery },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'read') }),
    async command({ db, query, loaded: { sensor } }) {
      const stats = await sensorStats(db, sensor.id, {
        startMs: query.event_start_time?.toMillis(),
        endMs: query.event_end_time?.toMillis(),
      });
      const local = (ms: number) => formatStart(DateTime.fromMillis(ms, { zone: sensor.timezone }));
      const body: Record<string, unknown> = {};
      for (const s of stats) {
        const entry: Record<string, unknown> = {
          'First event start': local(s.firstEventStartMs),
          'Last event end': local(s.lastEventStartMs + sensor.event_resolution_ms),
          'Last recorded': local(s.lastBeliefTimeMs),
          'Min value': s.min,
          'Max value': s.max,
          'Mean value': s.mean,
          'Sum over values': s.sum,
          'Number of values': s.count,
        };
        // Unsorted, FlexMeasures keeps the order above; sorted (its default), keys go alphabetically.
        const keys = query.sort === false ? Object.keys(entry) : Object.keys(entry).sort();
        body[`${sourceDescription(s)} (ID: ${s.sourceId})`] = Object.fromEntries(keys.map((k) => [k, entry[k]]));
      }
      return body;
    },
    // Per data source, by its description.
    response: { schema: z.record(z.string(), z.record(z.string(), z.unknown())) },
  }),
  route({
    method: 'PATCH',
    path: '/sensors/:id',
    summary: 'Update a sensor',
    request: { params: idParams, json: sensorPatch },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'update') }),
    transaction: true,
    command: ({ context, principal, body, loaded: { sensor } }) =>
      updateSensor(context, principal, {
        sensor,
        changes: {
          name: body.name,
          unit: body.unit,
          timezone: body.timezone,
          event_resolution_ms: body.event_resolution,
          attributes: body.attributes,
        },
      }),
    response: { schema: wire.sensorAnswer, present: presentOne },
  }),
  route({
    method: 'DELETE',
    path: '/sensors/:id',
    summary: 'Delete a sensor',
    request: { params: idParams },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'delete') }),
    transaction: true,
    command: ({ context, principal, loaded: { sensor } }) => deleteSensor(context, principal, { sensor }),
    response: { status: 204, schema: null, description: 'deleted, with its data' },
  }),
];
