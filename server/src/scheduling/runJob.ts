import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { JobResult, JobWarning } from '../contracts/responses.ts';
import type { FlexsiteJobs, PrincipalRef } from '../contracts/jobs.ts';
import type { ProcessJobSpec } from '../contracts/jobSpec.ts';
import type { JobHandler } from '../jobs/jobQueue.ts';
import type { WorkerPool } from '../workers/workerPool.ts';
import type { Clock } from '../clock.ts';
import { buildProcessProblem, buildStorageProblem, sensorsOnce, type JobSensors } from './buildProblem.ts';
import { solveProcess, solveStorage } from './job/choose.ts';
import { presentProcessSchedule, presentStorageSchedule } from './job/present.ts';
import { assertOwnerMay } from './job/rights.ts';
import { storeProcessSchedule, storeStorageSchedule } from './job/store.ts';

const ms = (v: number) => Math.round(v * 10) / 10;

/** What the scheduling handler works with. */
export interface SchedulingHandlerDeps {
  db: Knex;
  pool: WorkerPool;
  log: Logger;
  clock: Clock;
  /**
   * Whether an infeasible storage job is followed by the fallback scheduler's job (0.18);
   * FlexMeasures 1.0 retired it, so its dialect reports the failure only.
   */
  fallback: boolean;
}

/**
 * The handler of the `scheduling` queue: reads the inputs as known at the belief time, chooses
 * and runs the scheduler in a worker thread (job/choose.ts), stores the result as beliefs of a
 * `scheduler` data source (job/store.ts) and presents it as the job's result (job/present.ts).
 */
export function schedulingHandler({ db, pool, log, clock, fallback }: SchedulingHandlerDeps): JobHandler<FlexsiteJobs, 'scheduling'> {
  return async (job, runtime) => {
    const { args } = job;
    const { spec } = args;
    const sensors = sensorsOnce(db);
    await assertOwnerMay(db, args.principal, spec, sensors);
    const beliefTimeMs = spec.priorMs ?? clock.now();
    if (spec.scheduler === 'ProcessScheduler') {
      return runProcess({ db, pool, sensors, spec, principal: args.principal, beliefTimeMs });
    }
    const storageArgs = { ...args, spec };
    const started = performance.now();
    const warnings: JobWarning[] = [];
    const problem = await buildStorageProblem(spec, { db, sensors, beliefTimeMs, log, warnings });
    const read = performance.now();
    const { model, schedule } = await solveStorage(pool, log, problem, {
      args: storageArgs,
      fallbackAllowed: fallback,
      standIn: () => runtime.standIn({ ...args, fallback: true }),
    });
    const solved = performance.now();
    const stored = await storeStorageSchedule(db, sensors, { jobId: job.id, args: storageArgs, model, problem, schedule, beliefTimeMs });
    const timing_ms = { read: ms(read - started), solve: ms(solved - read), store: ms(performance.now() - solved) };
    return presentStorageSchedule({ args: storageArgs, model, problem, schedule, beliefTimeMs, stored, warnings, timing_ms }, sensors, db);
  };
}

async function runProcess(job: {
  db: Knex;
  pool: WorkerPool;
  sensors: JobSensors;
  spec: ProcessJobSpec;
  principal: PrincipalRef;
  beliefTimeMs: number;
}): Promise<JobResult> {
  const { db, sensors, spec, beliefTimeMs } = job;
  const warnings: JobWarning[] = [];
  const problem = await buildProcessProblem(spec, { db, sensors, beliefTimeMs, warnings });
  const schedule = await solveProcess(job.pool, problem);
  const stored = await storeProcessSchedule(db, sensors, { spec, principal: job.principal, schedule, beliefTimeMs });
  return presentProcessSchedule({ spec, problem, schedule, beliefTimeMs, stored, warnings });
}
