import type { Logger } from 'pino';
import type { SchedulingJobArgs } from '../../contracts/jobs.ts';
import type { StorageJobSpec } from '../../contracts/jobSpec.ts';
import type { WorkerPool } from '../../workers/workerPool.ts';
import type { ProcessProblem, ProcessSchedule, StorageProblem, StorageSchedule } from '../../../../worker/src/tasks.ts';
import { SchedulingFailure } from '../failure.ts';
import { solveTimeLimitSeconds } from '../solveTimeLimit.ts';

export type StorageModel = 'StorageScheduler' | 'StorageFallbackScheduler';

/** A storage job's arguments, its spec known to be a storage one. */
export type StorageJobArgs = SchedulingJobArgs & { spec: StorageJobSpec };

/**
 * Chooses the scheduler (the fallback policy for a fallback job, a site's custom scheduler, or
 * the optimiser) and runs it in a worker thread.
 * @param how.standIn queues the fallback job that stands in for an infeasible one.
 * @throws a SchedulingFailure when the solver fails or finds the problem infeasible (naming the
 *   stand-in job when one is queued).
 */
export async function solveStorage(
  pool: WorkerPool,
  log: Logger,
  problem: StorageProblem,
  how: { args: StorageJobArgs; fallbackAllowed: boolean; standIn: () => Promise<string> },
): Promise<{ model: StorageModel; schedule: StorageSchedule }> {
  const { spec, fallback } = how.args;
  const model = fallback ? 'StorageFallbackScheduler' : 'StorageScheduler';
  const failureName = fallback ? 'FallbackSchedulerError' : 'SchedulerError';
  const outcome = await (
    fallback
      ? pool.run('fallbackStorageSchedule', problem)
      : spec.customScheduler
        ? pool.run('customStorageSchedule', { plugin: spec.customScheduler, problem })
        : pool.run('storageSchedule', { ...problem, timeLimitSeconds: solveTimeLimitSeconds(problem.stepCount, problem.devices.length) })
  ).catch((err: unknown) => {
    log.error({ err }, 'solver failed');
    // A runtime error's text (a RangeError, say) tells people nothing: the log keeps it.
    const plain = err instanceof Error && err.constructor === Error;
    throw new SchedulingFailure(failureName, plain ? err.message : 'the solver stopped unexpectedly; the server log has the details.');
  });
  if (!outcome.ok) {
    if (!fallback && outcome.kind === 'infeasible' && how.fallbackAllowed) {
      // The reference answers an infeasible problem with a simple charge/discharge policy: a
      // job of its own.
      throw new SchedulingFailure('InfeasibleProblemException', outcome.message, await how.standIn());
    }
    if (outcome.kind === 'infeasible' && !fallback) throw new SchedulingFailure('InfeasibleProblemException', outcome.message);
    throw new SchedulingFailure(failureName, outcome.message);
  }
  return { model, schedule: outcome.schedule };
}

/** Runs the process scheduler in a worker thread. @throws a ValueError failure when it fails. */
export async function solveProcess(pool: WorkerPool, problem: ProcessProblem): Promise<ProcessSchedule> {
  const outcome = await pool.run('processSchedule', problem).catch((err: unknown) => {
    throw new SchedulingFailure('ValueError', err instanceof Error ? err.message : String(err));
  });
  if (!outcome.ok) throw new SchedulingFailure('ValueError', outcome.message);
  return outcome.schedule;
}

/** What a solved storage job is stored and presented from. */
export interface SolvedStorageJob {
  args: StorageJobArgs;
  model: StorageModel;
  problem: StorageProblem;
  schedule: StorageSchedule;
  beliefTimeMs: number;
}
