import type { Knex } from 'knex';
import { fieldError } from '../errors.ts';
import { auditActor, type Principal } from '../policies/principal.ts';
import { attributeReferences, authorizeReferences, storedFlexReferences } from '../policies/references.ts';
import { authorizeSchedulerChoice } from '../policies/schedulerChoice.ts';
import * as assets from '../store/assets.ts';
import * as write from '../store/write/assets.ts';
import { unrecorded } from '../store/auditLog.ts';
import { recordAudit } from '../store/write/auditLog.ts';
import { getSensor, listSensors } from '../store/sensors.ts';
import { createSensor, updateSensor } from '../store/write/sensors.ts';
import type { Writes } from './context.ts';

/**
 * FlexMeasures 1.0's asset copy (POST /assets/<id>/copy): the asset with its descendants and their
 * sensors (no data), configuration pointing at copied sensors re-pointed to the copies.
 */

export interface CopyTarget {
  /** The account the copy belongs to (null: public). */
  accountId: number | null;
  /** The asset the copy is placed under (null: top level). */
  parentId: number | null;
}

/** 1.0's copy name: `Home (Copy)`, else the next free `Home (Copy N)` among the copy's siblings. */
async function copyName(db: Knex, name: string, target: CopyTarget): Promise<string> {
  const taken = async (n: string) => assets.assetNameTaken(db, { name: n, parentId: target.parentId, accountId: target.accountId });
  if (!(await taken(`${name} (Copy)`))) return `${name} (Copy)`;
  let n = 2;
  while (await taken(`${name} (Copy ${n})`)) n++;
  return `${name} (Copy ${n})`;
}

const isSensorListKey = (key: string) => key === 'sensors' || key === 'sensors_to_show' || key.endsWith('-sensors');
// 0.18's `market_id` attribute names a price sensor.
const isSensorKey = (key: string) => key === 'sensor' || key === 'market_id' || key.endsWith('-sensor');

/** Stored configuration with every sensor id the map knows replaced by its copy's. */
function repointed(value: unknown, copies: Map<number, number>, listOfSensors = false): unknown {
  const mapped = (v: unknown) => (typeof v === 'number' ? (copies.get(v) ?? v) : v);
  if (Array.isArray(value))
    return value.map((v) => (listOfSensors && typeof v === 'number' ? mapped(v) : repointed(v, copies, listOfSensors)));
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, isSensorKey(k) ? mapped(v) : repointed(v, copies, isSensorListKey(k))]),
  );
}

/**
 * Copies the asset's subtree into the target, in the caller's transaction. The caller has read the
 * source and may create in the target (the route authorizes both).
 * @throws 403 when the subtree chooses a scheduler plugin and the caller is no platform admin, or
 *   its configuration names sensors the target account may not use; 422 for a parent in the subtree.
 */
export async function copyAsset(
  context: Writes<'schedulerPlugins'>,
  principal: Principal,
  input: { asset: assets.Asset; target: CopyTarget },
): Promise<assets.Asset> {
  const { db: trx, schedulerPlugins } = context;
  const { asset, target } = input;
  // The copy is recorded as a whole, once its root exists.
  const step = unrecorded('part of a copy');
  const sourceIds = await assets.descendantIds(trx, asset.id);
  if (target.parentId !== null && sourceIds.includes(target.parentId)) {
    throw fieldError('query', 'parent', 'Invalid copy target parent: cannot copy an asset to itself or any of its descendants.');
  }
  const sources = await Promise.all(sourceIds.map(async (id) => (await assets.getAsset(trx, id))!));
  const assetCopies = new Map<number, number>();
  const sensorCopies = new Map<number, number>();
  const copiedSensors: { id: number; attributes: Record<string, unknown> }[] = [];
  // Parents before children: descendantIds lists them generation by generation.
  for (const source of sources) {
    const isRoot = source.id === asset.id;
    // Copying a scheduler choice is choosing it: platform admins only, as when writing it.
    authorizeSchedulerChoice(principal, schedulerPlugins, {}, source.attributes);
    const copy = await write.createAsset(trx, step, {
      name: isRoot ? await copyName(trx, source.name, target) : source.name,
      description: source.description ?? null,
      // 1.0 leaves the id in another system behind: it names the original.
      external_id: null,
      latitude: source.latitude,
      longitude: source.longitude,
      generic_asset_type_id: source.generic_asset_type_id,
      account_id: target.accountId,
      parent_asset_id: isRoot ? target.parentId : assetCopies.get(source.parent_asset_id!)!,
      attributes: source.attributes,
    });
    assetCopies.set(source.id, copy.id);
    for (const sensor of await listSensors(trx, { assetId: source.id })) {
      authorizeSchedulerChoice(principal, schedulerPlugins, {}, sensor.attributes);
      const { id, ...fields } = sensor;
      const copyId = (await createSensor(trx, step, { ...fields, generic_asset_id: copy.id })).id;
      sensorCopies.set(id, copyId);
      copiedSensors.push({ id: copyId, attributes: sensor.attributes });
    }
  }
  // Sensor attributes name sensors too (`market_id`, attribute-style flex configuration): re-pointed
  // and authorized for the copy's account like the assets' configuration below.
  for (const sensor of copiedSensors) {
    const attributes = repointed(sensor.attributes, sensorCopies) as Record<string, unknown>;
    await authorizeReferences(trx, principal, attributeReferences(attributes), [], target.accountId);
    await updateSensor(trx, step, (await getSensor(trx, sensor.id))!, { attributes });
  }
  for (const source of sources) {
    const copied = (await assets.getAsset(trx, assetCopies.get(source.id)!))!;
    const config = {
      flex_context: repointed(source.flex_context, sensorCopies) as Record<string, unknown>,
      flex_model: repointed(source.flex_model, sensorCopies) as Record<string, unknown>,
      attributes: repointed(source.attributes, sensorCopies) as Record<string, unknown>,
    };
    // What stays pointing outside the subtree must be usable by the copy's account, as for any
    // stored configuration (jobs run on it for that account).
    const kpis = config.attributes.sensors_to_show_as_kpis as { sensor: number }[] | undefined;
    const { refs, usableBy } = storedFlexReferences({ ...config, sensors_to_show_as_kpis: kpis }, target.accountId);
    await authorizeReferences(trx, principal, refs, [], usableBy);
    await write.updateAsset(trx, step, copied, config);
  }
  const copy = (await assets.getAsset(trx, assetCopies.get(asset.id)!))!;
  const event = `Copied asset '${asset.name}': ${asset.id} to '${copy.name}': ${copy.id}`;
  await recordAudit(trx, auditActor(principal), { assetId: copy.id, accountId: copy.account_id }, event);
  return copy;
}
