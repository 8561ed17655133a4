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
