/**
 * Piscina task module of the worker: one export per task of the contract in tasks.ts, run by name
 * through the server's typed pool. Inputs and outputs are plain, structured-clonable objects.
 * Scheduling tasks answer expected failures (infeasible, invalid problem) as a ScheduleOutcome;
 * anything else is thrown, and crossing the thread boundary keeps only its message.
 */
import { checkPassword, hashPassword } from './passwords.ts';
import type { ForecastOutcome, ForecastTask } from './forecasting/index.ts';
import { runCustomScheduler } from './scheduling/customScheduler.ts';
import { fallbackSchedule } from './scheduling/fallbackSchedule.ts';
import { scheduleProcess, type ProcessProblem, type ProcessSchedule } from './scheduling/processScheduler.ts';
import type { StorageSchedule } from './scheduling/scheduleResult.ts';
import { SchedulingError, solveStorage } from './scheduling/solveStorage.ts';
import { structuralErrors, type StorageProblem } from './scheduling/storageProblem.ts';
import type { ScheduleOutcome, StorageScheduleTask, TaskModule } from './tasks.ts';

/** A SchedulingError as data; other errors stay thrown. */
async function outcome<T>(make: () => T | Promise<T>): Promise<ScheduleOutcome<T>> {
  try {
    return { ok: true, schedule: await make() };
  } catch (err) {
    if (err instanceof SchedulingError) return { ok: false, kind: err.kind, message: err.message };
    throw err;
  }
}

/**
 * Optimal storage schedule (HiGHS, LP first, binaries only where needed, verified).
 *
 * @param task the problem, optionally with a time limit (s) and MIP gap.
 * @returns the schedule, or why none can be made (kind `infeasible`: "The input data yields an infeasible problem: …").
 */
export async function storageSchedule(task: StorageScheduleTask): Promise<ScheduleOutcome<StorageSchedule>> {
  const { timeLimitSeconds, mipRelGap, ...problem } = task;
  return outcome(() => solveStorage(problem, { timeLimitSeconds, mipRelGap }));
}

/**
 * The simple v0.19 fallback policy: full power toward the first target or violated bound, then idle.
 * Meant for problems the optimiser found infeasible.
 *
 * @param problem the problem.
 * @returns the fallback schedule (`stats.solver = "fallback"`), or kind `invalid-problem` when it is malformed.
 */
export async function fallbackStorageSchedule(problem: StorageProblem): Promise<ScheduleOutcome<StorageSchedule>> {
  return outcome(() => {
    const errors = structuralErrors(problem);
    if (errors.length > 0) throw new SchedulingError('invalid-problem', errors);
    return fallbackSchedule(problem);
  });
}

/**
 * Process schedule (INFLEXIBLE, SHIFTABLE or BREAKABLE).
 *
 * @param problem the process problem.
 * @returns power per step and cost.
 */
export async function processSchedule(problem: ProcessProblem): Promise<ScheduleOutcome<ProcessSchedule>> {
  return outcome(() => scheduleProcess(problem));
}

/**
 * Storage schedule from a deployment's scheduler plugin (`custom-scheduler` attribute).
 *
 * @param task the plugin's registered name and the problem.
 * @returns the plugin's schedule, shape-checked.
 */
export async function customStorageSchedule(task: { plugin: string; problem: StorageProblem }): Promise<ScheduleOutcome<StorageSchedule>> {
  return outcome(() => runCustomScheduler(task.plugin, task.problem));
}

/**
 * Forecast of one sensor: the method with the best backtest on its history, fitted and run.
 *
 * @param task the history on the sensor's grid, the site, regressors and how many steps.
 * @returns the values, the method and its backtest.
 */
export async function forecast(task: ForecastTask): Promise<ForecastOutcome> {
  // Loaded on the first forecast: the holiday calendars and the matrix library cost a thread
  // that only schedules tens of MB.
  const { forecastSeries } = await import('./forecasting/index.ts');
  return forecastSeries(task);
}

/**
 * A bcrypt hash of a password, computed in a thread so that logins and user changes never block
 * the server's event loop (server/src/passwordPool.ts).
 *
 * @param password the password.
 * @returns the hash.
 */
export async function passwordHash(password: string): Promise<string> {
  return hashPassword(password);
}

/**
 * Whether a password matches a bcrypt hash, in a thread like `passwordHash`.
 *
 * @param task the password and the stored hash.
 * @returns true when they match.
 */
export async function passwordMatches(task: { password: string; hash: string }): Promise<boolean> {
  return checkPassword(task.password, task.hash);
}

// The exports above are exactly the contract's tasks, with its payload and result types.
({
  storageSchedule,
  fallbackStorageSchedule,
  processSchedule,
  customStorageSchedule,
  forecast,
  passwordHash,
  passwordMatches,
}) satisfies TaskModule;
