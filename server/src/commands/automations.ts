import type { Knex } from 'knex';
import type { z } from 'zod';
import type { automationCreate, automationPatch } from '../contracts/automations.ts';
import { fieldError, forbidden } from '../errors.ts';
import { authorize, can } from '../policies/access.ts';
import { automationLimitProblem, automationReferences } from '../policies/automations.ts';
import { auditActor, type Principal } from '../policies/principal.ts';
import { assetAccess, authorizeReferences, firstRefused } from '../policies/references.ts';
import type { Asset } from '../store/assets.ts';
import * as store from '../store/automations.ts';
import type { AutomationProps } from '../store/automations.ts';
import * as write from '../store/write/automations.ts';
import { getSensor } from '../store/sensors.ts';
import { getUser, type User } from '../store/users.ts';
import type { Uses } from './context.ts';

/**
 * Adding, changing and deleting an automation, the one way the API and the CLI do it. The
 * principal must be allowed to change the asset; the automation's maker (whose current rights its
 * runs use) and the asset's account must be allowed to use what it names, now and again at each run.
 * No HTTP context: errors are the API's (422 field messages, 403).
 */

type Named = Parameters<typeof automationReferences>[0];

/** The store's fields of a change; absent fields stay as they are. */
const automationChanges = (body: z.output<typeof automationPatch>): Partial<AutomationProps> => ({
  name: body.name,
  cron: body.cron,
  timezone: body.timezone,
  forecastSensorIds: body.forecast_sensor_ids,
  scheduleSensorId: body.schedule_sensor_id,
  horizon: body.horizon,
  enabled: body.enabled,
});

/** A new automation's fields; without a time zone it runs in that of the sensor it names first (else UTC). */
async function newAutomation(db: Knex, body: z.output<typeof automationCreate>): Promise<AutomationProps> {
  const named = body.schedule_sensor_id ?? body.forecast_sensor_ids[0];
  const timezone = body.timezone ?? (named ? (await getSensor(db, named))?.timezone : undefined) ?? 'UTC';
  return { ...(automationChanges(body) as AutomationProps), timezone };
}

/** Whether the writer may change the asset and write into the sensors the automation names (422 for unknown ones). */
async function authorizeWriter(db: Knex, writer: Principal, asset: Asset, body: Named): Promise<void> {
  authorize(writer, 'update', await assetAccess(db, asset.account_id));
  await authorizeReferences(db, writer, automationReferences(body), []);
}

/**
 * The maker an automation acts for must be an active user allowed what it names, and so must
 * whoever writes it: neither may point the other's rights at a sensor they could not write. The
 * maker's refusal names them, as the caller may not be who is refused.
 */
async function authorizeWriterAndMaker(db: Knex, principal: Principal, makerId: number | null, asset: Asset, body: Named): Promise<User> {
  await authorizeWriter(db, principal, asset, body);
  const maker = makerId === null ? undefined : await getUser(db, makerId);
  if (!maker?.active)
    throw fieldError('json', 'owner_id', `User ${makerId} not found or inactive: automations run with an active user's rights.`);
  const why = "Automations run with their maker's rights, for the asset's account";
  if (!can(maker, 'update', await assetAccess(db, asset.account_id)))
    throw forbidden(`${why}: user ${maker.id} may not change asset ${asset.id}.`);
  const refused = await firstRefused(db, maker, automationReferences(body), undefined, asset.account_id);
  if (refused) {
    const who = `user ${maker.id} or account ${asset.account_id ?? 'public'}`;
    throw forbidden(`${why}: ${who} may not ${refused.use} sensor ${refused.id} (${refused.field}).`);
  }
  return maker;
}

/** The 422 of an automation beyond the limits (how often, how far ahead, how many per asset and account). */
async function checkLimits(
  context: Uses<'config' | 'clock'>,
  fields: { cron: string; timezone: string; horizon: string },
  asset: Asset,
  adding: boolean,
): Promise<void> {
  const problem = await automationLimitProblem(context.db, context.config.limits, fields, asset, adding);
  if (problem) throw fieldError('json', problem.field, problem.message);
}

/**
 * Adds an automation to an asset, acting for `makerId` (a user at the API is their own maker; the
 * operator at the CLI names one).
 */
export async function createAutomation(
  context: Uses<'config' | 'clock'>,
  principal: Principal,
  input: { asset: Asset; makerId: number; body: z.output<typeof automationCreate> },
): Promise<store.Automation> {
  const { db } = context;
  const { asset, body } = input;
  const maker = await authorizeWriterAndMaker(db, principal, input.makerId, asset, body);
  const props = await newAutomation(db, body);
  await checkLimits(context, props, asset, true);
  return db.transaction((trx) =>
    write.createAutomation(trx, auditActor(principal), { asset, ownerId: maker.id, props, nowMs: context.clock.now() }),
  );
}

/** Changes the given fields of an automation; its maker stays who it was. */
export async function updateAutomation(
  context: Uses<'config' | 'clock'>,
  principal: Principal,
  input: { automation: store.Automation; asset: Asset; body: z.output<typeof automationPatch> },
): Promise<store.Automation> {
  const { db } = context;
  const { automation, asset, body } = input;
  // Pausing or renaming the automation of a maker who has left stays possible; naming sensors does not.
  if (automationReferences(body).length) await authorizeWriterAndMaker(db, principal, automation.ownerId, asset, body);
  else await authorizeWriter(db, principal, asset, body);
  const fields = {
    cron: body.cron ?? automation.cron,
    timezone: body.timezone ?? automation.timezone,
    horizon: body.horizon ?? automation.horizon,
  };
  await checkLimits(context, fields, asset, false);
  return db.transaction((trx) => write.updateAutomation(trx, auditActor(principal), { asset, automation }, automationChanges(body)));
}

/** Deletes an automation (whoever may change its asset). */
export async function deleteAutomation(
  context: Uses,
  principal: Principal,
  input: { automation: store.Automation; asset: Asset },
): Promise<void> {
  authorize(principal, 'update', await assetAccess(context.db, input.asset.account_id));
  await context.db.transaction((trx) => write.deleteAutomation(trx, auditActor(principal), input));
}
