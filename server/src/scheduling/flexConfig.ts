import type { Config } from '../config.ts';
import type { JobSpec } from '../contracts/jobSpec.ts';
import type { Asset } from '../store/assets.ts';
import type { RowReads } from '../store/rowReads.ts';
import { flexReferences, type Reference } from '../policies/references.ts';
import { jobReferences } from './jobReferences.ts';
import { attribute, flexError } from './flexConfig/fields.ts';
import { resolveProcessJob, type SensorTrigger } from './flexConfig/processJob.ts';
import { resolveStorageJob } from './flexConfig/storageJob.ts';

// How a trigger's flex-model and flex-context become a job spec. The rooms under flexConfig/
// each resolve one concern: quantities and their units, the schedule's horizon, state of charge,
// the device, the site and its prices, soft constraints, commitments; this module picks the scheduler.
export { horizonOf, maxPlanningMs, type TriggerInput } from './flexConfig/horizon.ts';
export { resolveProcessJob, resolveStorageJob };

/** Asset types and the scheduler that serves them (in the 1.0 dialect, storage serves all but processes). */
const storageTypes = new Set(['battery', 'one-way_evse', 'two-way_evse']);
const processTypes = new Set(['process', 'load']);

/**
 * Every sensor and asset a trigger names or its job will use: those of the request's and the
 * asset's stored flex-configs (all of them, also fields the job ends up not using) and those of
 * the resolved job (attribute fallbacks such as `market_id` included).
 * @param request the flex-model (object, or list of device entries) and flex-context as sent.
 */
export function triggerReferences(spec: JobSpec, asset: Asset, request: { flexModel?: unknown; flexContext?: unknown }): Reference[] {
  const prefix = Array.isArray(request.flexModel) ? 'flex-model' : '';
  return [
    ...flexReferences(request.flexModel, prefix),
    ...flexReferences(request.flexContext),
    ...flexReferences(asset.attributes['flex-model']),
    ...flexReferences(asset.attributes['flex-context']),
    ...jobReferences(spec),
  ];
}

/**
 * Picks the scheduler for the asset type and resolves a single-sensor trigger.
 * @returns the job spec; 422 for asset types nothing can schedule (0.18 dialect).
 */
export async function resolveSensorJob(rows: RowReads, config: Config, trigger: SensorTrigger): Promise<JobSpec> {
  const { input, sensor, asset, flexModel } = trigger;
  if (processTypes.has(sensor.asset_type)) return resolveProcessJob(rows, config, trigger);
  // FlexMeasures 1.0 schedules every other asset type as storage; 0.18 kept a list.
  const storage = config.apiCompat === '1.0' || storageTypes.has(sensor.asset_type);
  if (storage || typeof attribute(sensor, asset, 'custom-scheduler') === 'string') {
    return resolveStorageJob(rows, config, { input, devices: [{ sensor, flexModel }], asset });
  }
  throw flexError(`Scheduling is not (yet) supported for asset type ${sensor.asset_type}.`);
}
