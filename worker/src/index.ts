/**
 * Piscina task module of the worker. Each export is a named task:
 * `pool.run(problem, { name: 'storageSchedule' })`. Inputs and outputs are plain, structured-clonable
 * objects; failures are thrown as Errors whose message carries every reason.
 */
import { runCustomScheduler } from './scheduling/customScheduler.ts';
import { scheduleProcess, type ProcessProblem, type ProcessSchedule } from './scheduling/processScheduler.ts';
import type { StorageSchedule } from './scheduling/scheduleResult.ts';
import { solveStorage, type SolveStorageOptions } from './scheduling/solveStorage.ts';
import type { StorageProblem } from './scheduling/storageProblem.ts';

/** Input of the `storageSchedule` task: the problem plus optional limits. */
export interface StorageScheduleTask extends StorageProblem {
  readonly timeLimitSeconds?: SolveStorageOptions['timeLimitSeconds'];
  readonly mipRelGap?: SolveStorageOptions['mipRelGap'];
}

/**
 * Optimal storage schedule (HiGHS, LP first, binaries only where needed, verified).
 *
 * @param task the problem, optionally with a time limit (s) and MIP gap.
 * @returns the schedule.
 * @throws Error ("The input data yields an infeasible problem: …" and similar) when no schedule can be made.
 */
export async function storageSchedule(task: StorageScheduleTask): Promise<StorageSchedule> {
  const { timeLimitSeconds, mipRelGap, ...problem } = task;
  return plainError(() => solveStorage(problem, { timeLimitSeconds, mipRelGap }));
}

/**
 * Process schedule (INFLEXIBLE, SHIFTABLE or BREAKABLE).
 *
 * @param problem the process problem.
 * @returns power per step and cost.
 */
export async function processSchedule(problem: ProcessProblem): Promise<ProcessSchedule> {
  return plainError(async () => scheduleProcess(problem));
}

/**
 * Storage schedule from a deployment's own scheduler module (`custom-scheduler` attribute).
 *
 * @param task the module path and the problem.
 * @returns the custom scheduler's schedule, shape-checked.
 */
export async function customStorageSchedule(task: { modulePath: string; problem: StorageProblem }): Promise<StorageSchedule> {
  return plainError(() => runCustomScheduler(task.modulePath, task.problem));
}

// Structured cloning keeps only name/message/stack of an Error, so re-throw a plain Error whose
// message says everything instead of relying on subclass fields.
async function plainError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Error) {
      const plain = new Error(error.message);
      plain.name = error.name;
      throw plain;
    }
    throw new Error(String(error));
  }
}
