import { automationCreate, automationPatch } from '../../contracts/automations.ts';
import {
  automationChanges,
  automationLimitProblem,
  automationReferences,
  newAutomation,
  presentAutomation,
} from '../../automations/wire.ts';
import { fieldError, notFound } from '../../errors.ts';
import type { Knex } from 'knex';
import * as wire from '../../contracts/responses.ts';
import { route } from '../../http/routes.ts';
import * as store from '../../store/automations.ts';
import { getAsset, type Asset } from '../../store/assets.ts';
import type { Config } from '../../config.ts';
import { assetById, idParams } from '../load.ts';

/** The automation of the path, 404 when unknown; the caller needs `permission` on its asset. */
async function automationById(db: Knex, id: number, permission: 'read' | 'update') {
  const automation = await store.getAutomation(db, id);
  if (!automation) throw notFound(`Automation ${id} not found`);
  const { on } = await assetById(db, automation.assetId, permission);
  return { value: automation, permission, on };
}

/** The 422 of an automation beyond the limits on what one account may start. */
async function withinLimits(
  db: Knex,
  limits: Config['limits'],
  fields: { cron: string; timezone: string; horizon: string },
  asset: Asset,
  adding: boolean,
) {
  const problem = await automationLimitProblem(db, limits, fields, asset, adding);
  if (problem) throw fieldError('json', problem.field, problem.message);
}

/** Recurring forecast-then-schedule tasks of an asset. */
export const automationRoutes = [
  route({
    method: 'GET',
    path: '/assets/:id/automations',
    summary: "List an asset's automations with their last and next run",
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ db, loaded }) => store.listAutomations(db, { assetId: loaded.asset.id }),
    response: { schema: wire.automationList, present: (list) => list.map(presentAutomation) },
  }),
  route({
    method: 'POST',
    path: '/assets/:id/automations',
    summary: 'Add an automation: forecast sensors, then schedule one, on a cron in the site time zone',
    request: { params: idParams, json: automationCreate },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'update') }),
    async check({ ctx, db, body, loaded: { asset } }) {
      const props = await newAutomation(db, body);
      await withinLimits(db, ctx.services.config.limits, props, asset, true);
      return props;
    },
    // Its runs act for the asset's account, which must be able to use what they name.
    references: ({ body, loaded: { asset } }) => ({ refs: automationReferences(body), usableBy: asset.account_id }),
    command: ({ db, user, loaded: { asset }, checked: props }) =>
      db.transaction((trx) => store.createAutomation(trx, asset.id, user.id, props, Date.now())),
    response: { status: 201, schema: wire.automation, present: presentAutomation, description: 'the automation' },
  }),
  route({
    method: 'PATCH',
    path: '/automations/:id',
    summary: 'Edit an automation',
    request: { params: idParams, json: automationPatch },
    load: async ({ db, params }) => ({ automation: await automationById(db, params.id, 'update') }),
    async check({ ctx, db, body, loaded: { automation } }) {
      const fields = {
        cron: body.cron ?? automation.cron,
        timezone: body.timezone ?? automation.timezone,
        horizon: body.horizon ?? automation.horizon,
      };
      await withinLimits(db, ctx.services.config.limits, fields, (await getAsset(db, automation.assetId))!, false);
    },
    references: async ({ db, body, loaded: { automation } }) => ({
      refs: automationReferences(body),
      usableBy: (await getAsset(db, automation.assetId))!.account_id,
    }),
    transaction: true,
    command: ({ db, body, loaded: { automation } }) => store.updateAutomation(db, automation.id, automationChanges(body)),
    response: { schema: wire.automation, present: presentAutomation },
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
