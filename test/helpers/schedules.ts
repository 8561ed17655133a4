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
