import type { z } from 'zod';
import { fieldTree, unprocessable } from '../../errors.ts';
import { fieldMessages } from '../../contracts/validate.ts';
import type { Asset } from '../../store/assets.ts';
import type { RowReads } from '../../store/rowReads.ts';
import type { SensorInContext } from '../../store/sensors.ts';

/** Flex-model and flex-context errors: field messages straight under `json`, as the reference nests them. */
export const flexError = (fields: Record<string, unknown> | string) => unprocessable('json', fields);
/** A message for a field; a dotted path (`soc-gain.0`) names a list item or sub-field. */
export const fail = (field: string, message: string) => flexError(fieldTree(field.split('.'), [message]));

export function parseFlex<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value ?? {}, { reportInput: true });
  if (!result.success) throw flexError(fieldMessages(result.error.issues));
  return result.data;
}

/** A sensor attribute, falling back to the asset's attribute of the same name. */
export function attribute(sensor: SensorInContext, asset: Asset, name: string): unknown {
  return sensor.attributes[name] ?? asset.attributes[name];
}

export const asNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Stored flex config on the asset (attributes `flex-model` / `flex-context`), under the request's. */
export function stored(asset: Asset, key: 'flex-model' | 'flex-context'): Record<string, unknown> {
  const v = asset.attributes[key];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

export async function referencedSensor(rows: RowReads, field: string, sensorId: number): Promise<SensorInContext> {
  const s = await rows.sensor(sensorId);
  if (!s) throw fail(field, `No sensor found with id ${sensorId}.`);
  return s;
}

/** An output sensor field as the spec's `…SensorId` key, absent when the field is. */
export async function outputSensor<F extends string, K extends string>(
  rows: RowReads,
  config: Partial<Record<F, { sensor: number }>>,
  field: F,
  key: K,
): Promise<Partial<Record<K, number>>> {
  const ref = config[field];
  return ref ? ({ [key]: (await referencedSensor(rows, field, ref.sensor)).id } as Partial<Record<K, number>>) : {};
}

/**
 * The `source-types` and `exclude-source-types` filters of every `{"sensor": id, …}` in the flex
 * configuration, by sensor id; each absent when none is given, so older jobs keep their cache keys.
 */
export function sourceTypeFilters(...configs: unknown[]): {
  sourceTypes?: Record<string, string[]>;
  excludeSourceTypes?: Record<string, string[]>;
} {
  const only: Record<string, string[]> = {};
  const excluded: Record<string, string[]> = {};
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    const v = value as Record<string, unknown>;
    if (typeof v.sensor === 'number' && Array.isArray(v['source-types'])) only[v.sensor] = v['source-types'] as string[];
    if (typeof v.sensor === 'number' && Array.isArray(v['exclude-source-types']))
      excluded[v.sensor] = v['exclude-source-types'] as string[];
    Object.values(v).forEach(walk);
  };
  configs.forEach(walk);
  return {
    ...(Object.keys(only).length && { sourceTypes: only }),
    ...(Object.keys(excluded).length && { excludeSourceTypes: excluded }),
  };
}
