/**
 * Reads the JSON text that assets and sensors carry as `attributes`.
 * @param text the attributes as the API sends them.
 * @returns the object, or an empty one when the text is not a JSON object.
 */
export function parseAttributes(text: string | undefined): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * The sensors an asset shows in its chart, in order (`sensors_to_show` may nest lists).
 * @param attributes the asset's attributes.
 * @returns the sensor ids.
 */
export function sensorsToShow(attributes: Record<string, unknown>): number[] {
  const value = attributes.sensors_to_show;
  if (!Array.isArray(value)) return [];
  return value.flatMap((v: unknown) => (Array.isArray(v) ? v : [v])).filter((v): v is number => Number.isSafeInteger(v));
}

const asObject = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * The flex-model and flex-context stored on an asset: its `flex_model`/`flex_context` fields,
 * over what older versions kept in the attributes under `flex-model`/`flex-context`.
 * @param asset the asset as the API sends it.
 * @returns both, empty when nothing is stored.
 */
export function storedFlex(asset: { attributes: string; flex_model?: string; flex_context?: string }): {
  model: Record<string, unknown>;
  context: Record<string, unknown>;
} {
  const attributes = parseAttributes(asset.attributes);
  return {
    model: { ...asObject(attributes['flex-model']), ...parseAttributes(asset.flex_model) },
    context: { ...asObject(attributes['flex-context']), ...parseAttributes(asset.flex_context) },
  };
}

/**
 * The sign convention of a power sensor's stored values, as the server keeps it: production
 * positive unless its attribute `consumption_is_positive` is true. Schedules are shown
 * consumption positive, so every place that shows stored power names its convention.
 * @returns e.g. `production positive`, or undefined for sensors that are not power.
 */
export function signConvention(sensor: { unit: string; attributes: string }): string | undefined {
  if (!isPowerUnit(sensor.unit)) return undefined;
  return parseAttributes(sensor.attributes).consumption_is_positive === true ? 'consumption positive' : 'production positive';
}

/** Units of power, the sensors whose values have a sign convention (W, kW, MW, GW). */
export const isPowerUnit = (unit: string): boolean => /^[kMG]?W$/.test(unit.trim());

/** A power sensor's unit with its sign convention, as every number of it is labelled: `kW, consumption positive`. */
export function unitWithSign(sensor: { unit: string; attributes: string }): string {
  const sign = signConvention(sensor);
  return sign ? `${sensor.unit}, ${sign}` : sensor.unit;
}
