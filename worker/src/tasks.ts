/**
 * The worker's contract: every task's name, payload and result, in one place. The worker's task
 * module (index.ts) implements it and the server's pool (server/src/workers/workerPool.ts) runs
 * tasks through it; the server imports worker code from this module only, which also hands on the
 * few pure helpers both sides share (the plugin name rule, step costs, the backtest's lead).
 */
import type { ForecastOutcome, ForecastTask } from './forecasting/index.ts';
import type { ProcessProblem, ProcessSchedule } from './scheduling/processScheduler.ts';
import type { StorageSchedule } from './scheduling/scheduleResult.ts';
import type { SchedulingErrorKind, SolveStorageOptions } from './scheduling/solveStorage.ts';
import type { StorageProblem } from './scheduling/storageProblem.ts';

export type { Backtest, ForecastOutcome, ForecastTask, MethodName, PvArray } from './forecasting/index.ts';
export { BACKTEST_LEAD_DAYS, FORECASTER_VERSION, GEOMETRY_HANDOVER_DAYS } from './forecasting/constants.ts';
export { hashPassword, randomPassword, UNKNOWN_USER_HASH } from './passwords.ts';
export type { ProcessProblem, ProcessSchedule } from './scheduling/processScheduler.ts';
export { stepCost, type StorageSchedule } from './scheduling/scheduleResult.ts';
export { PLUGIN_NAME, unregisteredSchedulerReason, type SchedulerPlugins } from './scheduling/schedulerPlugins.ts';
export type { SchedulingErrorKind } from './scheduling/solveStorage.ts';
export { socSeries, softCapacity, type StorageDevice, type StorageProblem } from './scheduling/storageProblem.ts';
export { nextSocMwh } from './scheduling/socDynamics.ts';
export { WARM_UP_PROBLEM } from './scheduling/warmUp.ts';

/** Input of the `storageSchedule` task: the problem plus optional limits. */
export interface StorageScheduleTask extends StorageProblem {
  readonly timeLimitSeconds?: SolveStorageOptions['timeLimitSeconds'];
  readonly mipRelGap?: SolveStorageOptions['mipRelGap'];
}

/**
 * A schedule, or why none can be made. Crossing the thread boundary keeps only an error's message,
 * so expected failures (an infeasible problem) come back as data the server can branch on.
 */
export type ScheduleOutcome<T> = { ok: true; schedule: T } | { ok: false; kind: SchedulingErrorKind; message: string };

/** Each task's payload and result. */
export interface WorkerTasks {
  storageSchedule: { payload: StorageScheduleTask; result: ScheduleOutcome<StorageSchedule> };
  fallbackStorageSchedule: { payload: StorageProblem; result: ScheduleOutcome<StorageSchedule> };
  processSchedule: { payload: ProcessProblem; result: ScheduleOutcome<ProcessSchedule> };
  customStorageSchedule: { payload: { plugin: string; problem: StorageProblem }; result: ScheduleOutcome<StorageSchedule> };
  forecast: { payload: ForecastTask; result: ForecastOutcome };
  passwordHash: { payload: string; result: string };
  passwordMatches: { payload: { password: string; hash: string }; result: boolean };
}

export type TaskName = keyof WorkerTasks;
export type TaskPayload<N extends TaskName> = WorkerTasks[N]['payload'];
export type TaskResult<N extends TaskName> = WorkerTasks[N]['result'];

/** What the task module must export: one function per task name. */
export type TaskModule = { [N in TaskName]: (payload: TaskPayload<N>) => Promise<TaskResult<N>> };
