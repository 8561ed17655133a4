import { automationCreate, automationPatch } from '../../contracts/automations.ts';
import { presentAutomation } from '../../presenters/automations.ts';
import { automationView } from '../../queries/automationOutcome.ts';
import { createAutomation, deleteAutomation, updateAutomation } from '../../commands/automations.ts';
import { notFound } from '../../errors.ts';
import type { Knex } from 'knex';
import * as wire from '../../contracts/responses.ts';
import { route } from '../../http/routes.ts';
import * as store from '../../store/automations.ts';
import { getAsset } from '../../store/assets.ts';
import { assetById, idParams } from '../load.ts';

/** The automation of the path, 404 when unknown; the caller needs `permission` on its asset. */
async function automationById(db: Knex, id: number, permission: 'read' | 'update') {
  const automation = await store.getAutomation(db, id);
  if (!automation) throw notFound(`Automation ${id} not found`);
  const { on } = await assetById(db, automation.assetId, permission);
  return { value: automation, permission, on };
}

/** Recurring forecast-then-schedule tasks of an asset. */
export const automationRoutes = [
  route({
    method: 'GET',
    path: '/assets/:id/automations',
    summary: "List an asset's automations with their last run's outcome and their next run",
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: async ({ ctx, db, loaded }) =>
      Promise.all((await store.listAutomations(db, { assetId: loaded.asset.id })).map((a) => automationView(db, ctx.services.jobs, a))),
    response: { schema: wire.automationList, present: (list, ctx) => list.map((a) => presentAutomation(a, ctx.services.clock.now())) },
  }),
  route({
    method: 'POST',
    path: '/assets/:id/automations',
    summary: 'Add an automation: forecast sensors, then schedule one, on a cron in the site time zone',
    request: { params: idParams, json: automationCreate },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'update') }),
    // The signed-in user is its maker: its runs act with their rights, for the asset's account.
    command: async ({ ctx, context, principal, user, body, loaded: { asset } }) =>
      automationView(context.db, ctx.services.jobs, await createAutomation(context, principal, { asset, makerId: user.id, body })),
    response: {
      status: 201,
      schema: wire.automation,
      present: (a, ctx) => presentAutomation(a, ctx.services.clock.now()),
      description: 'the automation',
    },
  }),
  route({
    method: 'PATCH',
    path: '/automations/:id',
    summary: 'Edit an automation',
    request: { params: idParams, json: automationPatch },
    load: async ({ db, params }) => ({ automation: await automationById(db, params.id, 'update') }),
    command: async ({ ctx, context, principal, db, body, loaded: { automation } }) =>
      automationView(
        db,
        ctx.services.jobs,
        await updateAutomation(context, principal, { automation, asset: (await getAsset(db, automation.assetId))!, body }),
      ),
    response: { schema: wire.automation, present: (a, ctx) => presentAutomation(a, ctx.services.clock.now()) },
  }),
  route({
    method: 'DELETE',
    path: '/automations/:id',
    summary: 'Delete an automation',
    request: { params: idParams },
    load: async ({ db, params }) => ({ automation: await automationById(db, params.id, 'update') }),
    command: async ({ context, principal, db, loaded: { automation } }) =>
      deleteAutomation(context, principal, { automation, asset: (await getAsset(db, automation.assetId))! }),
    response: { status: 204, schema: null, description: 'deleted' },
  }),
];
