import type { AutomationJobArgs } from '../automations/runAutomation.ts';
import type { AutomationJobResult, ForecastJobResult, JobResult } from '../contracts/responses.ts';
import type { ForecastJobArgs } from '../forecasting/forecastJob.ts';
import type { SchedulingJobArgs } from '../scheduling/runJob.ts';

/**
 * Flexsite's queues, as the worker's task contract (worker/src/tasks.ts) is for its tasks: each
 * queue's name, the arguments its jobs are queued with and the result a finished job stores.
 */
export type FlexsiteJobs = {
  scheduling: { args: SchedulingJobArgs; result: JobResult };
  forecasting: { args: ForecastJobArgs; result: ForecastJobResult };
  automation: { args: AutomationJobArgs; result: AutomationJobResult };
};

export type QueueName = keyof FlexsiteJobs;

/** Every queue (the type requires each to be listed). */
const queues: Record<QueueName, true> = { scheduling: true, forecasting: true, automation: true };

/** Whether a stored job's queue name is one of Flexsite's queues. */
export const isQueueName = (name: string): name is QueueName => Object.hasOwn(queues, name);
