import { API, request, type RequestOptions } from './client.ts';
import type { Job, JobStatus } from './types.ts';
import * as wire from './contracts.ts';

/**
 * Reads a job the way the server writes it in either API dialect: FlexMeasures 0.18 style (this
 * server's default) or 1.0 style, where states are in capitals and a failed job answers 422.
 * @param path the job's URL.
 * @returns the job, its state in lower case.
 */
export async function readJob(path: string, options: RequestOptions = {}): Promise<Job> {
  const job = await request(path, { ...options, answer: wire.schedulingJob, accept: [422] });
  return { ...job, status: job.status.toLowerCase() as JobStatus };
}

/** The URL of a job. */
export const jobPath = (id: string) => `${API}/jobs/${id}`;
