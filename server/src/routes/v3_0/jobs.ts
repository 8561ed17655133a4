import { z } from 'zod';
import { intText } from '../../contracts/fields.ts';
import { forbidden, rejected } from '../../errors.ts';
import { parseInput } from '../../http/validate.ts';
import type { RouteSpec } from '../../http/routes.ts';
import type { JobRecord } from '../../jobs/jobQueue.ts';
import { authorize } from '../../policies/access.ts';
import { accountAccess, loadAccount, readableAccount } from './load.ts';

const listQuery = z.object({ account_id: intText.optional(), limit: intText.optional() });

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A job for people: state, timing, arguments, result summary and error. */
export const presentJob = (job: JobRecord, withResult: boolean) => ({
  id: job.id,
  queue: job.queue,
  status: job.status,
  account_id: job.accountId,
  sensor_id: job.sensorId,
  created_at: iso(job.createdAt),
  started_at: iso(job.startedAt),
  finished_at: iso(job.finishedAt),
  attempts: job.attempts,
  args: job.args,
  error: job.error,
  fallback_job_id: job.fallbackJobId,
  ...(withResult ? { result: job.result } : {}),
});

/** The scheduling jobs of an account, for the UI's job list and schedule inspection. */
export const jobRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/jobs',
    summary: 'List the scheduling jobs of an account, newest first',
    request: { query: listQuery },
    async handler(ctx) {
      const query = parseInput(listQuery, ctx.query, 'query');
      const account = await readableAccount(ctx, query.account_id);
      const limit = Math.min(Math.max(query.limit ?? 100, 1), 1000);
      const jobs = await ctx.services.jobs.list({ accountId: account.id, limit });
      ctx.body = jobs.map((j) => presentJob(j, false));
    },
  },
  {
    method: 'GET',
    path: '/jobs/:uuid',
    summary: 'Get a scheduling job with its result: power, state of charge, prices and costs per step',
    request: { params: z.object({ uuid: z.string() }) },
    async handler(ctx) {
      const job = await ctx.services.jobs.get(ctx.params.uuid);
      if (!job) {
        throw rejected(400, 'UNRECOGNIZED_UDI_EVENT', `The requested UDI event (id = ${ctx.params.uuid}, type = job) is not known.`);
      }
      if (job.accountId === null) {
        if (!ctx.state.user!.roles.some((r) => r === 'admin' || r === 'admin-reader')) throw forbidden();
      } else {
        authorize(ctx.state.user!, 'read', accountAccess(await loadAccount(ctx, job.accountId)));
      }
      // No flask-json `status: 200` here: `status` is the job's state.
      ctx.body = presentJob(job, true);
    },
  },
];
