import type { MethodName } from '../../../worker/src/tasks.ts';
import type { TimeOfUseTariff } from '../domain/tariffPrice.ts';
import type { BatteryReplayResult } from './batteryReplay.ts';
import type { JobSpec } from './jobSpec.ts';
import type { AutomationJobResult, ForecastJobResult, JobResult } from './responses.ts';

/** A principal as recorded with a job: ids only, resolved again by `resolvePrincipal` when the job runs. */
export type PrincipalRef =
  | { kind: 'user'; userId: number }
  /** The maker is null once their user was deleted: such an automation has nobody to act for. */
  | { kind: 'automation'; automationId: number; ownerId: number | null }
  | { kind: 'operator' };

/** What an input sensor held in a job's window, as of the job's belief time, compared by value. */
export interface WindowVersion {
  sensor: number;
  beliefs: number;
  /** The newest belief time, null when the window holds no beliefs. */
  newestBeliefMs: number | null;
  /** The sum of the values: a value fixed in place (same timing, new value) changes it. */
  total: number;
}

/** Job arguments: the resolved spec, whose rights it runs with, and whether this is the fallback of an infeasible job. */
export interface SchedulingJobArgs {
  spec: JobSpec;
  /** Who started it (a user, an automation for its maker): the job may only read and write what they may, when it runs. */
  principal: PrincipalRef;
  fallback?: boolean;
  /**
   * What its input sensors held in its window when it was triggered: hashed with the rest, so a
   * job is reused only while they are unchanged. Absent in fallback jobs and older jobs.
   */
  inputs?: WindowVersion[];
}

/** What a forecasting job is asked: which sensor, which window, as known when, from what. */
export interface ForecastJobArgs {
  sensorId: number;
  /**
   * Who started it (a user, an automation for its maker, the operator at the command line): the
   * job reads and writes only what they may, when it runs.
   */
  principal: PrincipalRef;
  startMs: number;
  endMs: number;
  /** The belief time of the forecasts; when absent, the time the job runs (or the start, if earlier). */
  priorMs?: number;
  /** Longest horizon of one forecast: a longer window is forecast in rolling cycles, each made at its own start. */
  maxHorizonMs?: number;
  regressorIds: number[];
  method?: MethodName;
}

/** One run of an automation: which one, and the due time it stands for. */
export interface AutomationJobArgs {
  automationId: number;
  dueMs: number;
  /** The automation acting for its maker: the run and the jobs it starts use the maker's rights as they are when it runs. */
  principal: PrincipalRef;
}

/** The prices of a battery replay, in EUR/MWh: a time-of-use tariff, or a day-ahead price sensor. */
export type ReplayTariffArgs =
  | { kind: 'time-of-use'; buying: TimeOfUseTariff; feedInPrice: number }
  /** `feedInPrice` null: energy sold earns the day-ahead price. */
  | { kind: 'day-ahead'; sensorId: number; feedInPrice: number | null };

/** A battery replay over a site's measured history (server/src/queries/batteryReplay.ts), resolved when it was started. */
export interface BatteryReplayJobArgs {
  assetId: number;
  /** Who started it: the job reads only what they (and the asset's account) may read, when it runs. */
  principal: PrincipalRef;
  loadSensorId: number;
  pvSensorId: number | null;
  sizes: { capacityKwh: number; powerKw: number; roundTripEfficiency: number }[];
  tariff: ReplayTariffArgs;
  /** The local midnights the replay runs between, and the dates they are in the site's zone. */
  fromMs: number;
  toMs: number;
  start: string;
  end: string;
}

/**
 * Flexsite's queues, as the worker's task contract (worker/src/tasks.ts) is for its tasks: each
 * queue's name, the arguments its jobs are queued with and the result a finished job stores.
 */
export type FlexsiteJobs = {
  scheduling: { args: SchedulingJobArgs; result: JobResult };
  forecasting: { args: ForecastJobArgs; result: ForecastJobResult };
  automation: { args: AutomationJobArgs; result: AutomationJobResult };
  'battery-replay': { args: BatteryReplayJobArgs; result: BatteryReplayResult };
};

export type QueueName = keyof FlexsiteJobs;

/** Every queue (the type requires each to be listed). */
const queues: Record<QueueName, true> = { scheduling: true, forecasting: true, automation: true, 'battery-replay': true };

/** The queues' names, as `GET /jobs?queue=` accepts them. */
export const queueNames = Object.keys(queues) as QueueName[];

/** Whether a stored job's queue name is one of Flexsite's queues. */
export const isQueueName = (name: string): name is QueueName => Object.hasOwn(queues, name);
