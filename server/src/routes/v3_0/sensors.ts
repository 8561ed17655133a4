import { z } from 'zod';
import { fieldError } from '../../errors.ts';
import { sensorCreate, sensorPatch } from '../../contracts/resources.ts';
import { DateTime } from 'luxon';
import { awareDateTime, boolText, intText } from '../../contracts/fields.ts';
import { formatStart } from '../../domain/time.ts';
import { sensorStats, type SourceStats } from '../../store/sensorStats.ts';
import { buildEntityAddress } from '../../domain/entityAddress.ts';
import { parseInput } from '../../http/validate.ts';
import type { RouteSpec } from '../../http/routes.ts';
import type { AppContext } from '../../http/context.ts';
import { authorize } from '../../policies/access.ts';
import { presentSensor } from '../../presenters/index.ts';
import { getAsset } from '../../store/assets.ts';
import * as sensors from '../../store/sensors.ts';
import { idParams, loadAsset, loadSensor, ownedAccess, readableAccount } from './load.ts';

const listQuery = z.object({ account_id: intText.optional(), asset_id: intText.optional() });

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

export const sensorRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/sensors',
    summary: 'Download sensor list',
    request: { query: listQuery },
    async handler(ctx) {
      const user = ctx.state.user!;
      const query = parseInput(listQuery, ctx.query, 'query');
      if (query.asset_id !== undefined) {
        const asset = await loadAsset(ctx, query.asset_id);
        authorize(user, 'read', await ownedAccess(ctx, 'asset', asset.account_id));
        ctx.body = (await sensors.listSensors(ctx.services.db, { assetId: asset.id })).map((s) => sensorJson(ctx, s));
        return;
      }
      const account = await readableAccount(ctx, query.account_id);
      ctx.body = (await sensors.listSensors(ctx.services.db, { accountId: account.id })).map((s) => sensorJson(ctx, s));
    },
  },
  {
    method: 'POST',
    path: '/sensors',
    summary: 'Create a new Sensor',
    request: { json: sensorCreate },
    responses: { 201: 'the new sensor' },
    async handler(ctx) {
      const body = parseInput(sensorCreate, ctx.request.body, 'json');
      const asset = await getAsset(ctx.services.db, body.generic_asset_id);
      if (!asset) {
        throw fieldError('json', 'generic_asset_id', `Generic asset with id ${body.generic_asset_id} doesn't exist.`);
      }
      authorize(ctx.state.user!, 'create-children', await ownedAccess(ctx, 'asset', asset.account_id));
      const sensor = await ctx.services.db.transaction((trx) =>
        sensors.createSensor(trx, {
          name: body.name,
          unit: body.unit,
          event_resolution_ms: body.event_resolution,
          generic_asset_id: asset.id,
          timezone: body.timezone ?? 'UTC',
          attributes: body.attributes ?? {},
        }),
      );
      ctx.status = 201;
      ctx.body = sensorJson(ctx, sensor);
    },
  },
  {
    method: 'GET',
    path: '/sensors/:id',
    summary: 'Get a sensor',
    request: { params: idParams },
    async handler(ctx) {
      const sensor = await loadSensor(ctx);
      authorize(ctx.state.user!, 'read', await ownedAccess(ctx, 'sensor', sensor.account_id));
      ctx.body = { ...sensorJson(ctx, sensor), status: 200 };
    },
  },
  {
    method: 'GET',
    path: '/sensors/:id/stats',
    summary: 'Get sensor stats',
    request: { params: idParams, query: statsQuery },
    async handler(ctx) {
      const query = parseInput(statsQuery, ctx.query, 'query');
      const sensor = await loadSensor(ctx);
      authorize(ctx.state.user!, 'read', await ownedAccess(ctx, 'sensor', sensor.account_id));
      const stats = await sensorStats(ctx.services.db, sensor.id, {
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
      ctx.body = body;
    },
  },
  {
    method: 'PATCH',
    path: '/sensors/:id',
    summary: 'Update a sensor',
    request: { params: idParams, json: sensorPatch },
    async handler(ctx) {
      const body = parseInput(sensorPatch, ctx.request.body, 'json');
      const sensor = await loadSensor(ctx);
      authorize(ctx.state.user!, 'update', await ownedAccess(ctx, 'sensor', sensor.account_id));
      await ctx.services.db.transaction((trx) =>
        sensors.updateSensor(trx, sensor.id, {
          name: body.name,
          unit: body.unit,
          timezone: body.timezone,
          event_resolution_ms: body.event_resolution,
          attributes: body.attributes,
        }),
      );
      ctx.body = { ...sensorJson(ctx, (await sensors.getSensor(ctx.services.db, sensor.id))!), status: 200 };
    },
  },
  {
    method: 'DELETE',
    path: '/sensors/:id',
    summary: 'Delete a sensor',
    request: { params: idParams },
    responses: { 204: 'deleted, with its data' },
    async handler(ctx) {
      const sensor = await loadSensor(ctx);
      authorize(ctx.state.user!, 'delete', await ownedAccess(ctx, 'sensor', sensor.account_id));
      await ctx.services.db.transaction((trx) => sensors.deleteSensor(trx, sensor.id));
      ctx.status = 204;
    },
  },
];
