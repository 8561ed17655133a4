import type { Knex } from 'knex';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { EnqueueOptions, JobQueue, JobRecord } from '../jobs/jobQueue.ts';
import { principalRef, type Principal } from '../policies/principal.ts';
import { attributeReferences, authorizeReferences, flexReferences, refuseForeign } from '../policies/references.ts';
import { resolveSensorJob, triggerReferences, type TriggerInput } from '../scheduling/flexConfig.ts';
import type { JobSpec } from '../contracts/jobSpec.ts';
import type { SchedulingJobArgs } from '../contracts/jobs.ts';
import { jobReferences } from '../scheduling/jobReferences.ts';
import { readSensorState } from '../scheduling/sensorState.ts';
import { deviceFlexModel, inheritedFlexContext } from '../scheduling/storedConfig.ts';
import { getAsset, type Asset } from '../store/assets.ts';
import { windowVersions } from '../store/beliefs.ts';
import type { SensorInContext } from '../store/sensors.ts';

/**
 * Triggering a schedule, the one sequence every caller uses (v3.0 and legacy routes, automations):
 * the principal (a user, or an automation acting for its maker with the maker's current rights)
 * and the asset's account must both be able to use every sensor involved; the job is queued in
 * the principal's name for the asset's account. No HTTP context: errors are the API's (422, 403).
 */

/** What the command needs of the server: the store to read, the settings, the queue. */
export interface ScheduleDeps {
  /** Reads only (the reading connections in a request). */
  db: Knex;
  config: Config;
  jobs: Pick<JobQueue, 'enqueue'>;
  /** What "now" is: the belief time of a trigger without `prior`. */
  clock: Clock;
}

/** How the job is queued: its results sensor, and whether a recent job of identical arguments and inputs may be reused. */
export type QueueOptions = Pick<EnqueueOptions, 'reuseWithinS' | 'force'> & { sensorId: number };

/**
 * Authorizes a resolved job for the principal and the asset's account, reads what it needs of the
 * (now authorized) sensors, and queues it.
 * @param request the flex-model (object or list of device entries) and flex-context as named.
 */
export async function queueSchedule(
  deps: ScheduleDeps,
  principal: Principal,
  job: { spec: JobSpec; asset: Asset; request: { flexModel?: unknown; flexContext?: unknown } },
  options: QueueOptions,
): Promise<JobRecord> {
  const { spec, asset, request } = job;
  await authorizeReferences(deps.db, principal, triggerReferences(spec, asset, request), [], asset.account_id);
  const args: SchedulingJobArgs = {
    spec: await readSensorState(deps.db, spec, spec.priorMs ?? deps.clock.now(), deps.config.socMaxAgeSteps),
    principal: principalRef(principal),
    inputs: await inputVersions(deps.db, spec),
  };
  return deps.jobs.enqueue('scheduling', args, { accountId: asset.account_id, ...options });
}

/**
 * What the job's input sensors hold in its window now: part of the job's arguments, so that a
 * trigger finds an earlier job only while the prices, forecasts and other inputs it read are
 * unchanged (the state of charge it starts from is in the spec itself).
 */
function inputVersions(db: Knex, spec: JobSpec) {
  const inputs = jobReferences(spec).flatMap((r) => (r.use === 'read' ? [r.id] : []));
  return windowVersions(db, inputs, { startMs: spec.startMs, endMs: spec.endMs, beliefsBeforeMs: spec.priorMs ?? undefined });
}

/**
 * Schedules one sensor from the request's flex configuration over what its asset (and the
 * asset's ancestors) store: refuses foreign sensors (403), also those its attributes name, before
 * the resolution reads them (422).
 */
export async function triggerSensorSchedule(
  deps: ScheduleDeps,
  principal: Principal,
  input: Omit<TriggerInput, 'flexContext'> & {
    sensor: SensorInContext;
    flexModel: Record<string, unknown>;
    flexContext: Record<string, unknown>;
  },
  options: Omit<QueueOptions, 'sensorId'>,
): Promise<JobRecord> {
  const { db, config } = deps;
  const { sensor, ...trigger } = input;
  const asset = (await getAsset(db, sensor.generic_asset_id))!;
  const flexContext = await inheritedFlexContext(db, asset, input.flexContext);
  const flexModel = await deviceFlexModel(db, sensor, input.flexModel);
  // Attributes stored before they were authorized when written must not tell a foreign unit either.
  const attributeRefs = [...attributeReferences(sensor.attributes), ...attributeReferences(asset.attributes)];
  await refuseForeign(db, principal, [...flexReferences(flexModel), ...flexReferences(flexContext), ...attributeRefs], asset.account_id);
  const spec = await resolveSensorJob(db, config, { ...trigger, flexContext }, sensor, asset, flexModel);
  return queueSchedule(deps, principal, { spec, asset, request: { flexModel, flexContext } }, { ...options, sensorId: sensor.id });
}
