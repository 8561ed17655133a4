import { isPowerUnit } from '../domain/units.ts';
import { assetLineage, descendantIds, type Asset } from '../store/assets.ts';
import type { RowReads } from '../store/rowReads.ts';
import { listSensors, type SensorInContext } from '../store/sensors.ts';

/**
 * Flex configuration stored on assets (FlexMeasures 1.0): a trigger's flex-context is the
 * request's over the asset's over its ancestors' (nearer ones first); a device's flex-model is the
 * request's over the one stored on the device's asset.
 */

/** Ways to name inflexible devices; whoever names any of them names the whole family. */
const inflexibleKeys = ['inflexible-device-sensors', 'inflexible-consumption', 'inflexible-production'];

/**
 * Adds fields from `lower` that `upper` lacks; the inflexible-device fields count as one field,
 * so that a nearer definition never mixes with a farther one.
 */
function under(upper: Record<string, unknown>, lower: Record<string, unknown>): Record<string, unknown> {
  const upperNamesInflexible = inflexibleKeys.some((k) => k in upper);
  const merged = { ...upper };
  for (const [key, value] of Object.entries(lower)) {
    if (key in merged || (upperNamesInflexible && inflexibleKeys.includes(key))) continue;
    merged[key] = value;
  }
  return merged;
}

/** @returns the request's flex-context completed from the asset and its ancestors. */
export async function inheritedFlexContext(
  rows: RowReads,
  asset: Asset,
  requested: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  let context = requested;
  for (const a of await assetLineage((id) => rows.asset(id), asset)) context = under(context, a.flex_context);
  return context;
}

/**
 * @param read the sensor's asset when the caller has read it for this trigger (not read again).
 * @returns the device's flex-model: the request's entry over the one stored on the sensor's asset.
 */
export async function deviceFlexModel(
  rows: RowReads,
  sensor: SensorInContext,
  requested: Record<string, unknown>,
  read?: Asset,
): Promise<Record<string, unknown>> {
  const asset = read?.id === sensor.generic_asset_id ? read : await rows.asset(sensor.generic_asset_id);
  return { ...(asset?.flex_model ?? {}), ...requested };
}

/**
 * Devices described only by a stored flex-model somewhere in the asset's tree, for a trigger
 * that does not name them. An asset-only flex-model describes the asset's one power sensor.
 * @param named ids of the assets whose devices the request already names.
 * @returns the devices, or a message naming an asset whose power sensor is ambiguous.
 */
export async function storedDevices(
  rows: RowReads,
  asset: Asset,
  named: Set<number>,
): Promise<{ sensor: SensorInContext; flexModel: Record<string, unknown> }[] | string> {
  const devices: { sensor: SensorInContext; flexModel: Record<string, unknown> }[] = [];
  const { db } = rows;
  for (const id of await descendantIds(db, asset.id)) {
    if (named.has(id)) continue;
    const a = id === asset.id ? asset : (await rows.asset(id))!;
    if (!Object.keys(a.flex_model).length) continue;
    const power = (await listSensors(db, { assetId: id })).filter((s) => isPowerUnit(s.unit));
    if (power.length !== 1) {
      return `Asset ${id} has a stored flex-model but ${power.length ? 'several' : 'no'} power sensors; name the device's sensor in the flex-model.`;
    }
    devices.push({ sensor: (await rows.sensor(power[0].id))!, flexModel: a.flex_model });
  }
  return devices;
}
