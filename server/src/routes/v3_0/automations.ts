import { automationCreate, automationPatch } from '../../contracts/automations.ts';
import { automationChanges, automationReferences, newAutomation, presentAutomation } from '../../automations/wire.ts';
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
    // Its runs act for the asset's account, which must be able to use what they name.
    references: ({ body, loaded: { asset } }) => ({ refs: automationReferences(body), usableBy: asset.account_id }),
    async command({ db, user, body, loaded: { asset } }) {
      const props = await newAutomation(db, body);
      return db.transaction((trx) => store.createAutomation(trx, asset.id, user.id, props, Date.now()));
    },
    response: { status: 201, schema: wire.automation, present: presentAutomation, description: 'the automation' },
  }),
  route({
    method: 'PATCH',
    path: '/automations/:id',
    summary: 'Edit an automation',
    request: { params: idParams, json: automationPatch },
    load: async ({ db, params }) => ({ automation: await automationById(db, params.id, 'update') }),
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
