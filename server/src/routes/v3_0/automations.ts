import { automationCreate, automationPatch } from '../../contracts/automations.ts';
import { nextDue } from '../../automations/cron.ts';
import { notFound } from '../../errors.ts';
import type { AppContext } from '../../http/context.ts';
import type { RouteSpec } from '../../http/routes.ts';
import { parseInput } from '../../http/validate.ts';
import { authorize } from '../../policies/access.ts';
import { authorizeReferences, type Reference } from '../../policies/references.ts';
import { getSensor } from '../../store/sensors.ts';
import * as store from '../../store/automations.ts';
import { idParams, loadAsset, ownedAccess, pathId } from './load.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An automation with its last queued and next due run. */
const presentAutomation = (a: store.Automation) => ({
  id: a.id,
  asset_id: a.assetId,
  name: a.name,
  cron: a.cron,
  timezone: a.timezone,
  forecast_sensor_ids: a.forecastSensorIds,
  schedule_sensor_id: a.scheduleSensorId,
  horizon: a.horizon,
  enabled: a.enabled,
  owner_id: a.ownerId,
  last_run: a.lastDueMs !== null && a.lastJobId !== null ? iso(a.lastDueMs) : null,
  last_job_id: a.lastJobId,
  next_run: a.enabled ? iso(nextDue(a.cron, a.timezone, Math.max(Date.now(), a.lastDueMs ?? 0))) : null,
});

/** The sensors an automation writes into: the forecasts and the schedule are stored there, in its maker's name. */
const automationReferences = (body: { forecast_sensor_ids?: number[]; schedule_sensor_id?: number | null }): Reference[] => [
  ...(body.forecast_sensor_ids ?? []).map((id, i): Reference => ({ kind: 'sensor', id, use: 'write', location: 'json', field: `forecast_sensor_ids.${i}` })),
  ...(body.schedule_sensor_id ? [{ kind: 'sensor', id: body.schedule_sensor_id, use: 'write', location: 'json', field: 'schedule_sensor_id' } as Reference] : []),
];

/** The automation of the path with its asset, 404 when unknown; the caller must be allowed `permission` on the asset. */
async function loadAutomation(ctx: AppContext, permission: 'read' | 'update') {
  const automation = await store.getAutomation(ctx.services.db, pathId(ctx));
  if (!automation) throw notFound(`Automation ${pathId(ctx)} not found`);
  const asset = await loadAsset(ctx, automation.assetId);
  authorize(ctx.state.user!, permission, await ownedAccess(ctx, 'asset', asset.account_id));
  return automation;
}

/** Recurring forecast-then-schedule tasks of an asset. */
export const automationRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/assets/:id/automations',
    summary: "List an asset's automations with their last and next run",
    request: { params: idParams },
    async handler(ctx) {
      const asset = await loadAsset(ctx);
      authorize(ctx.state.user!, 'read', await ownedAccess(ctx, 'asset', asset.account_id));
      ctx.body = (await store.listAutomations(ctx.services.db, { assetId: asset.id })).map(presentAutomation);
    },
  },
  {
    method: 'POST',
    path: '/assets/:id/automations',
    summary: 'Add an automation: forecast sensors, then schedule one, on a cron in the site time zone',
    request: { params: idParams, json: automationCreate },
    responses: { 201: 'the automation' },
    async handler(ctx) {
      const body = parseInput(automationCreate, ctx.request.body, 'json');
      const asset = await loadAsset(ctx);
      const user = ctx.state.user!;
      authorize(user, 'update', await ownedAccess(ctx, 'asset', asset.account_id));
      await authorizeReferences(ctx.services.db, user, automationReferences(body));
      const named = body.schedule_sensor_id ?? body.forecast_sensor_ids[0];
      const timezone = body.timezone ?? (named ? (await getSensor(ctx.services.db, named))?.timezone : undefined) ?? 'UTC';
      const props = {
        name: body.name,
        cron: body.cron,
        timezone,
        forecastSensorIds: body.forecast_sensor_ids,
        scheduleSensorId: body.schedule_sensor_id,
        horizon: body.horizon,
        enabled: body.enabled,
      };
      const created = await ctx.services.db.transaction((trx) => store.createAutomation(trx, asset.id, user.id, props, Date.now()));
      ctx.status = 201;
      ctx.body = presentAutomation(created);
    },
  },
  {
    method: 'PATCH',
    path: '/automations/:id',
    summary: 'Edit an automation',
    request: { params: idParams, json: automationPatch },
    async handler(ctx) {
      const body = parseInput(automationPatch, ctx.request.body, 'json');
      const automation = await loadAutomation(ctx, 'update');
      await authorizeReferences(ctx.services.db, ctx.state.user!, automationReferences(body));
      const updated = await ctx.services.db.transaction((trx) =>
        store.updateAutomation(trx, automation.id, {
          name: body.name,
          cron: body.cron,
          timezone: body.timezone,
          forecastSensorIds: body.forecast_sensor_ids,
          scheduleSensorId: body.schedule_sensor_id,
          horizon: body.horizon,
          enabled: body.enabled,
        }),
      );
      ctx.body = presentAutomation(updated);
    },
  },
  {
    method: 'DELETE',
    path: '/automations/:id',
    summary: 'Delete an automation',
    request: { params: idParams },
    responses: { 204: 'deleted' },
    async handler(ctx) {
      const automation = await loadAutomation(ctx, 'update');
      await ctx.services.db.transaction((trx) => store.deleteAutomation(trx, automation.id));
      ctx.status = 204;
    },
  },
];
