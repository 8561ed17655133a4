import { automationCreate, automationPatch } from '../../contracts/automations.ts';
import { nextDue } from '../../automations/cron.ts';
import { notFound } from '../../errors.ts';
import type { Knex } from 'knex';
import { z } from 'zod';
import { route } from '../../http/routes.ts';
import type { Reference } from '../../policies/references.ts';
import { getSensor } from '../../store/sensors.ts';
import * as store from '../../store/automations.ts';
import { assetById, idParams } from '../load.ts';

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
  ...(body.forecast_sensor_ids ?? []).map((id, i): Reference => ({
    kind: 'sensor',
    id,
    use: 'write',
    location: 'json',
    field: `forecast_sensor_ids.${i}`,
  })),
  ...(body.schedule_sensor_id
    ? [{ kind: 'sensor', id: body.schedule_sensor_id, use: 'write', location: 'json', field: 'schedule_sensor_id' } as Reference]
    : []),
];

/** The automation of the path, 404 when unknown; the caller needs `permission` on its asset. */
async function automationById(db: Knex, id: number, permission: 'read' | 'update') {
  const automation = await store.getAutomation(db, id);
  if (!automation) throw notFound(`Automation ${id} not found`);
  const { on } = await assetById(db, automation.assetId, permission);
  return { value: automation, permission, on };
}

const automationAnswer = z.looseObject({ id: z.number(), asset_id: z.number(), name: z.string(), cron: z.string(), enabled: z.boolean() });

/** Recurring forecast-then-schedule tasks of an asset. */
export const automationRoutes = [
  route({
    method: 'GET',
    path: '/assets/:id/automations',
    summary: "List an asset's automations with their last and next run",
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ db, loaded }) => store.listAutomations(db, { assetId: loaded.asset.id }),
    response: { schema: z.array(automationAnswer), present: (list) => list.map(presentAutomation) },
  }),
  route({
    method: 'POST',
    path: '/assets/:id/automations',
    summary: 'Add an automation: forecast sensors, then schedule one, on a cron in the site time zone',
    request: { params: idParams, json: automationCreate },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'update') }),
    references: ({ body }) => automationReferences(body),
    async command({ db, user, body, loaded: { asset } }) {
      const named = body.schedule_sensor_id ?? body.forecast_sensor_ids[0];
      const timezone = body.timezone ?? (named ? (await getSensor(db, named))?.timezone : undefined) ?? 'UTC';
      const props = {
        name: body.name,
        cron: body.cron,
        timezone,
        forecastSensorIds: body.forecast_sensor_ids,
        scheduleSensorId: body.schedule_sensor_id,
        horizon: body.horizon,
        enabled: body.enabled,
      };
      return db.transaction((trx) => store.createAutomation(trx, asset.id, user.id, props, Date.now()));
    },
    response: { status: 201, schema: automationAnswer, present: presentAutomation, description: 'the automation' },
  }),
  route({
    method: 'PATCH',
    path: '/automations/:id',
    summary: 'Edit an automation',
    request: { params: idParams, json: automationPatch },
    load: async ({ db, params }) => ({ automation: await automationById(db, params.id, 'update') }),
    references: ({ body }) => automationReferences(body),
    transaction: true,
    command: ({ db, body, loaded: { automation } }) =>
      store.updateAutomation(db, automation.id, {
        name: body.name,
        cron: body.cron,
        timezone: body.timezone,
        forecastSensorIds: body.forecast_sensor_ids,
        scheduleSensorId: body.schedule_sensor_id,
        horizon: body.horizon,
        enabled: body.enabled,
      }),
    response: { schema: automationAnswer, present: presentAutomation },
  }),
  route({
    method: 'DELETE',
    path: '/automations/:id',
    summary: 'Delete an automation',
    request: { params: idParams },
    load: async ({ db, params }) => ({ automation: await automationById(db, params.id, 'update') }),
    transaction: true,
    command: ({ db, loaded }) => store.deleteAutomation(db, loaded.automation.id),
    response: { status: 204, schema: null, description: 'deleted' },
  }),
];
