import { unprocessable } from '../errors.ts';
import { authorize, type AccessContext } from '../policies/access.ts';
import { auditActor, type Principal } from '../policies/principal.ts';
import { assetAccess, attributeReferences, authorizeReferences, sensorAccess } from '../policies/references.ts';
import { authorizeSchedulerChoice } from '../policies/schedulerChoice.ts';
import { checkStoredAttributes } from '../scheduling/storedValues.ts';
import { hasChildAssets, type Asset } from '../store/assets.ts';
import { deleteAsset } from '../store/write/assets.ts';
import * as sensors from '../store/sensors.ts';
import * as write from '../store/write/sensors.ts';
import type { Writes } from './context.ts';

/**
 * Creating, changing and deleting a sensor, the one way v3.0, API 2.0 (whose "assets" are power
 * sensors) and the CLI do it: the principal's rights on the sensor or its asset, a scheduler
 * choice only for those who may make it, and the sensors and values its attributes name. Each
 * runs in the caller's transaction, whose store write records the audit entry.
 */

type SensorFields = Pick<sensors.Sensor, 'name' | 'unit' | 'event_resolution_ms' | 'timezone' | 'attributes'>;

/**
 * A scheduler choice in the attributes is the operator's plugins' to make; named sensors must be
 * usable by the asset's account; a sign convention is a boolean.
 */
async function checkAttributes(
  context: Writes<'schedulerPlugins'>,
  principal: Principal,
  change: { before: Record<string, unknown>; after: Record<string, unknown> | undefined; accountId: number | null },
): Promise<void> {
  // The sign decides whether a load is bought or sold: a value that is not a boolean (`"false"`) is no sign.
  const sign = change.after?.consumption_is_positive;
  if (sign !== undefined && typeof sign !== 'boolean') {
    throw unprocessable('json', { attributes: ['consumption_is_positive must be true or false.'] });
  }
  authorizeSchedulerChoice(principal, context.schedulerPlugins, change.before, change.after);
  await authorizeReferences(context.db, principal, attributeReferences(change.after), [], change.accountId);
  await checkStoredAttributes(context.db, change.after);
}

/** Adds a sensor to an asset, where the principal may create children. */
export async function createSensor(
  context: Writes<'schedulerPlugins'>,
  principal: Principal,
  input: { asset: Asset; fields: SensorFields },
): Promise<sensors.Sensor> {
  const { asset, fields } = input;
  authorize(principal, 'create-children', await assetAccess(context.db, asset.account_id));
  await checkAttributes(context, principal, { before: {}, after: fields.attributes, accountId: asset.account_id });
  return write.createSensor(context.db, auditActor(principal), { ...fields, generic_asset_id: asset.id });
}

/**
 * Changes the given fields of a sensor.
 * @param input.access the rule the change is made under: the sensor's own, or API 2.0's for its devices.
 * @returns the sensor as stored afterwards.
 */
export async function updateSensor(
  context: Writes<'schedulerPlugins'>,
  principal: Principal,
  input: { sensor: sensors.SensorInContext; changes: Partial<SensorFields>; access?: AccessContext },
): Promise<sensors.SensorInContext> {
  const { sensor, changes } = input;
  authorize(principal, 'update', input.access ?? sensorAccess(sensor));
  await checkAttributes(context, principal, { before: sensor.attributes, after: changes.attributes, accountId: sensor.account_id });
  await write.updateSensor(context.db, auditActor(principal), sensor, changes);
  return (await sensors.getSensor(context.db, sensor.id))!;
}

/** Deletes a sensor with its data. */
export async function deleteSensor(context: Writes, principal: Principal, input: { sensor: sensors.SensorInContext }): Promise<void> {
  authorize(principal, 'delete', sensorAccess(input.sensor));
  await write.deleteSensor(context.db, auditActor(principal), input.sensor);
}

/**
 * Deletes an API 2.0 device (a power sensor) under that version's rule (members of its account),
 * and its asset when it held only that device: not the v3.0 asset delete (account-admins), which
 * would refuse it.
 */
export async function deleteDevice(
  context: Writes,
  principal: Principal,
  input: { sensor: sensors.SensorInContext; asset: Asset },
): Promise<void> {
  const { sensor, asset } = input;
  authorize(principal, 'delete', { kind: 'v2-asset', accountId: sensor.account_id });
  await write.deleteSensor(context.db, auditActor(principal), sensor);
  const rest = await sensors.listSensors(context.db, { assetId: asset.id });
  if (!rest.length && !(await hasChildAssets(context.db, asset.id))) await deleteAsset(context.db, auditActor(principal), asset);
}
