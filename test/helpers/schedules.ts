import type { JobRecord } from '../../server/src/jobs/jobQueue.ts';
import type { StorageJobSpec } from '../../server/src/contracts/jobSpec.ts';
import type { SchedulingJobArgs } from '../../server/src/contracts/jobs.ts';
import type { ApiResponse, TestServer } from './testServer.ts';

/**
 * Polls a schedule the way clients do, until it is ready or failed.
 * @returns the last response.
 */
export async function waitForSchedule(
  t: TestServer,
  token: string,
  sensorId: number,
  jobId: string,
  duration?: string,
): Promise<ApiResponse> {
  for (let i = 0; i < 600; i++) {
    const res = await t.request('GET', `/api/v3_0/sensors/${sensorId}/schedules/${jobId}`, {
      token,
      query: { duration },
    });
    const pending = res.status === 400 && /waiting to be processed|in progress/.test(String(res.body?.message));
    if (!pending) return res;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`schedule ${jobId} did not finish`);
}

/**
 * A copy of a scheduling job's arguments, for tests that queue an altered copy past the API's
 * checks (as a job queued before a rule, or by hand, would be).
 * @throws when the job is not a storage schedule.
 */
export function storageJobArgs(job: JobRecord | undefined): SchedulingJobArgs & { spec: StorageJobSpec } {
  if (job?.queue !== 'scheduling' || job.args.spec.scheduler !== 'StorageScheduler')
    throw new Error(`job ${job?.id} is no storage schedule`);
  return { ...structuredClone(job.args), spec: structuredClone(job.args.spec) };
}
