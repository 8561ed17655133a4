import type { Reference, Use } from '../policies/references.ts';
import type { JobSpec } from '../contracts/jobSpec.ts';

/** Sensors whose schedules a job writes, in order. */
export const scheduledSensors = (spec: JobSpec): number[] =>
  spec.scheduler === 'StorageScheduler' ? spec.devices.map((d) => d.sensorId) : [spec.sensorId];

/**
 * Every sensor a job reads or writes: what the trigger is authorized for, and what the job
 * re-checks before it stores anything. Found by the spec's naming rules, so that fields added
 * later are covered: a single `…sensorId`/`…SensorId` is an output the job writes; a list
 * `…SensorIds` and a series `{sensor, unit}` are inputs it reads.
 */
export function jobReferences(spec: JobSpec): Reference[] {
  const refs: Reference[] = [];
  const add = (id: number, use: Use, path: (string | number)[]) =>
    refs.push({ kind: 'sensor', id, use, location: 'json', field: path.join('.') });
  const walk = (value: unknown, path: (string | number)[]): void => {
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, i]));
    if (!value || typeof value !== 'object' || Array.isArray(value)) return;
    for (const [key, v] of Object.entries(value)) {
      if (key === 'sensor' && typeof v === 'number') add(v, 'read', path);
      else if (/sensorId$/i.test(key) && typeof v === 'number') add(v, 'write', [...path, key]);
      else if (/sensorIds$/i.test(key) && Array.isArray(v))
        v.forEach((id, i) => typeof id === 'number' && add(id, 'read', [...path, key, i]));
      else walk(v, [...path, key]);
    }
  };
  walk(spec, []);
  return refs;
}
