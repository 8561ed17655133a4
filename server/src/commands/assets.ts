import type { Knex } from 'knex';
import type { z } from 'zod';
import type { assetCreate, assetPatch } from '../contracts/resources.ts';
import { fieldError, forbidden, unprocessable } from '../errors.ts';
import { authorize, can } from '../policies/access.ts';
import { auditActor, type Actor, type Principal } from '../policies/principal.ts';
import { assetAccess, authorizeReferences, storedFlexReferences } from '../policies/references.ts';
import { mayOwnAssetsIn } from '../policies/roles.ts';
import { authorizeSchedulerChoice } from '../policies/schedulerChoice.ts';
import { checkStoredAttributes, checkStoredValues } from '../scheduling/storedValues.ts';
import { getAccount } from '../store/accounts.ts';
import * as assets from '../store/assets.ts';
import * as write from '../store/write/assets.ts';
import { getSensor } from '../store/sensors.ts';
import type { Writes } from './context.ts';

/**
 * Creating, changing and deleting an asset, the one way every caller does it (the v3.0 endpoints,
 * API 2.0's devices, the CLI): the principal's rights on the asset and its account, the sensors its stored flex
 * configuration names (for the principal and the asset's account, whoever later runs it), and the
 * asset rules (type, parent in the same account, free name and external id, stored values). No
 * HTTP context: errors are the API's (422 field messages, 403). Each runs in the caller's
 * transaction (`db`), whose store write records the audit entry.
 */

export type AssetCreate = z.output<typeof assetCreate>;
export type AssetPatch = z.output<typeof assetPatch>;

/** Attributes with 1.0's top-level `sensors_to_show` and `sensors_to_show_as_kpis` folded in, where Flexsite keeps them. */
const withShown = (attributes: Record<string, unknown>, top: { sensors_to_show?: unknown; sensors_to_show_as_kpis?: unknown }) => ({
  ...attributes,
  ...(top.sensors_to_show === undefined ? {} : { sensors_to_show: top.sensors_to_show }),
  ...(top.sensors_to_show_as_kpis === undefined ? {} : { sensors_to_show_as_kpis: top.sensors_to_show_as_kpis }),
});

/** KPI sensors (found and authorized with the other references) must have a daily resolution, as 1.0 asks. */
async function checkKpiSensors(db: Knex, kpis: { sensor: number }[] | undefined): Promise<void> {
  for (const [i, kpi] of (kpis ?? []).entries()) {
    if ((await getSensor(db, kpi.sensor))?.event_resolution_ms !== 86_400_000) {
      throw unprocessable('json', {
        sensors_to_show_as_kpis: { [i]: { sensor: [`Sensor with ID ${kpi.sensor} is not a daily sensor.`] } },
      });
    }
  }
}

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
 * A parent must exist, be visible to the principal and sit in the same account: deleting a parent
 * deletes its children, which must not reach into another account.
 */
async function checkParent(db: Knex, actor: Actor, parentId: number | null | undefined, accountId: number | null): Promise<void> {
  if (!parentId) return;
  const parent = await assets.getAsset(db, parentId);
  if (!parent || !can(actor, 'read', await assetAccess(db, parent.account_id))) {
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

/** The sensors and assets an asset's stored configuration names, authorized for the writer and the asset's account. */
async function authorizeStoredFlex(db: Knex, principal: Principal, body: AssetPatch, accountId: number | null): Promise<void> {
  const { refs, usableBy } = storedFlexReferences(body, accountId);
  await authorizeReferences(db, principal, refs, [], usableBy);
}

/**
 * Creates an asset in `input.account_id` (left out: a public asset, admins only).
 * @returns the new asset.
 */
export async function createAsset(context: Writes<'schedulerPlugins'>, principal: Principal, input: AssetCreate): Promise<assets.Asset> {
  const { db } = context;
  const accountId = input.account_id ?? null;
  await authorizeStoredFlex(db, principal, input, accountId);
  if (accountId === null && !mayOwnAssetsIn(principal, null)) throw forbidden();
  if (accountId !== null) {
    if (!mayOwnAssetsIn(principal, accountId))
      throw fieldError('json', 'account_id', 'User is not allowed to create assets for this account.');
    if (!(await getAccount(db, accountId))) throw fieldError('json', 'account_id', `Account with Id ${accountId} doesn't exist.`);
  }
  await checkType(db, input.generic_asset_type_id);
  await checkParent(db, principal, input.parent_asset_id, accountId);
  const attributes = withShown(input.attributes ?? {}, input);
  await checkKpiSensors(db, input.sensors_to_show_as_kpis);
  authorizeSchedulerChoice(principal, context.schedulerPlugins, {}, attributes);
  await checkSensorsToShow(db, attributes);
  const parentId = input.parent_asset_id ?? null;
  await checkNameFree(db, { name: input.name, parentId, accountId });
  await checkExternalIdFree(db, { externalId: input.external_id, accountId });
  await checkStoredValues(db, input.flex_model, 'flex_model');
  await checkStoredValues(db, input.flex_context, 'flex_context');
  await checkStoredAttributes(db, input.attributes);
  return write.createAsset(db, auditActor(principal), {
    description: input.description ?? null,
    external_id: input.external_id ?? null,
    name: input.name,
    latitude: input.latitude ?? null,
    longitude: input.longitude ?? null,
    generic_asset_type_id: input.generic_asset_type_id,
    account_id: accountId,
    parent_asset_id: parentId,
    attributes,
    flex_context: input.flex_context,
    flex_model: input.flex_model,
  });
}

/**
 * Changes the given fields of an asset (its account never changes).
 * @returns the asset as stored afterwards.
 */
export async function updateAsset(
  context: Writes<'schedulerPlugins'>,
  principal: Principal,
  input: { asset: assets.Asset; changes: AssetPatch },
): Promise<assets.Asset> {
  const { db } = context;
  const { asset, changes: body } = input;
  authorize(principal, 'update', await assetAccess(db, asset.account_id));
  await authorizeStoredFlex(db, principal, body, asset.account_id);
  await checkType(db, body.generic_asset_type_id);
  if (body.parent_asset_id === asset.id) throw unprocessable('json', { parent_asset_id: ['An asset cannot be its own parent.'] });
  await checkParent(db, principal, body.parent_asset_id, asset.account_id);
  if (body.parent_asset_id && (await assets.descendantIds(db, asset.id)).includes(body.parent_asset_id)) {
    // Flex-context inheritance walks up the tree; a cycle would make an asset its own ancestor.
    throw fieldError('json', 'parent_asset_id', 'A descendant asset cannot become the parent.');
  }
  const { sensors_to_show, sensors_to_show_as_kpis, ...changes } = body;
  const attributes =
    sensors_to_show === undefined && sensors_to_show_as_kpis === undefined
      ? body.attributes
      : withShown(body.attributes ?? asset.attributes, body);
  await checkKpiSensors(db, sensors_to_show_as_kpis);
  authorizeSchedulerChoice(principal, context.schedulerPlugins, asset.attributes, attributes);
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
  await write.updateAsset(db, auditActor(principal), asset, { ...changes, attributes });
  return (await assets.getAsset(db, asset.id))!;
}

/**
 * Deletes an asset with the assets below it, their sensors and data (account-admins of its account,
 * admins).
 */
export async function deleteAsset(context: Writes, principal: Principal, input: { asset: assets.Asset }): Promise<void> {
  authorize(principal, 'delete', await assetAccess(context.db, input.asset.account_id));
  await write.deleteAsset(context.db, auditActor(principal), input.asset);
}
