/**
 * Type-level checks of the queue boundary (compiled by `tsc -p .`, never run): each queue takes
 * only its own arguments and hands its handler and readers its own argument and result types.
 * Each `@ts-expect-error` fails the compile when the line under it stops being an error.
 */
import type { FlexsiteJobs } from '../../server/src/contracts/jobs.ts';
import type { EnqueueOptions, JobHandler, JobQueue, JobRecord } from '../../server/src/jobs/jobQueue.ts';
import type { SchedulingJobArgs } from '../../server/src/contracts/jobs.ts';

declare const jobs: JobQueue<FlexsiteJobs>;
declare const options: EnqueueOptions;
declare const scheduling: SchedulingJobArgs;

export async function wrongArguments(): Promise<void> {
  await jobs.enqueue('scheduling', scheduling, options);
  await jobs.enqueue('automation', { automationId: 1, dueMs: 0, principal: { kind: 'operator' } }, options);
  // @ts-expect-error a schedule's arguments on the automation queue
  await jobs.enqueue('automation', scheduling, options);
  // @ts-expect-error an automation run's arguments on the scheduling queue
  await jobs.enqueue('scheduling', { automationId: 1, dueMs: 0 }, options);
  // @ts-expect-error arguments of no queue
  await jobs.enqueue('forecasting', { sensor: 1 }, options);
  // @ts-expect-error a queue that does not exist
  await jobs.enqueue('mining', {}, options);
}

export function typedReads(job: JobRecord): number | undefined {
  // @ts-expect-error the arguments depend on the queue: read them after checking it
  void job.args.spec;
  if (job.queue === 'automation') return job.args.dueMs;
  if (job.queue === 'forecasting') return job.result?.cycles.length;
  if (job.queue === 'battery-replay') return job.result?.days;
  return job.result?.['num-beliefs'];
}

// @ts-expect-error a forecast's handler must return a forecast's result
export const wrongResult: JobHandler<FlexsiteJobs, 'forecasting'> = async () => ({ automation_id: 1 });
