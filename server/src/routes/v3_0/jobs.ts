import { z } from 'zod';
import { intText } from '../../contracts/fields.ts';
import { AppError, forbidden, rejected } from '../../errors.ts';
import { speaks10 } from '../../http/compat.ts';
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

const capitalized = (queue: string) => queue.charAt(0).toUpperCase() + queue.slice(1);

/** FlexMeasures 1.0's sentence for a job's state, e.g. "Scheduling job in progress.". */
export function jobStatusMessage(job: JobRecord): string {
  const queue = capitalized(job.queue);
  if (job.status === 'queued') return `${queue} job waiting to be processed.`;
  if (job.status === 'started') return `${queue} job in progress.`;
  if (job.status === 'finished') return `${queue} job has finished.`;
  return job.error ? `${queue} job failed with ${job.error.replace(/\.$/, '')}.` : `${queue} job failed, but no exception information was stored.`;
}

/** Python's isoformat of a UTC time, as FlexMeasures 1.0 writes job timestamps. */
const pyIso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().replace('Z', '+00:00'));

/**
 * A job in FlexMeasures 1.0's words (kebab-case fields with their snake-case aliases, `status` in
 * capitals, `result` with the constraint analysis), over Flexsite's own fields, which the UI reads.
 */
function presentJob10(job: JobRecord) {
  const times = {
    'enqueued-at': pyIso(job.createdAt),
    'started-at': pyIso(job.startedAt),
    'ended-at': pyIso(job.finishedAt),
    'exc-info': job.status === 'failed' ? job.error : null,
  };
  const funcName = `flexsite.${job.queue}`;
  const result = job.status === 'finished' ? { unresolved: [], resolved: [], ...job.result } : null;
  return {
    ...presentJob(job, true),
    status: job.status.toUpperCase(),
    message: jobStatusMessage(job),
    result,
    origin: job.queue,
    'func-name': funcName,
    ...times,
    func_name: funcName,
    enqueued_at: times['enqueued-at'],
    started_at: times['started-at'],
    ended_at: times['ended-at'],
    exc_info: times['exc-info'],
  };
}

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
      const v10 = speaks10(ctx.services.config);
      if (!job) {
        if (v10) throw new AppError(404, { status: 'ERROR', message: `Job ${ctx.params.uuid} not found.` });
        throw rejected(400, 'UNRECOGNIZED_UDI_EVENT', `The requested UDI event (id = ${ctx.params.uuid}, type = job) is not known.`);
      }
      if (job.accountId === null) {
        if (!ctx.state.user!.roles.some((r) => r === 'admin' || r === 'admin-reader')) throw forbidden();
      } else {
        authorize(ctx.state.user!, 'read', accountAccess(await loadAccount(ctx, job.accountId)));
      }
      // No flask-json `status: 200` here: `status` is the job's state. FlexMeasures 1.0 answers
      // 202 while the job waits or runs and 422 once it failed.
      if (!v10) {
        ctx.body = presentJob(job, true);
        return;
      }
      ctx.status = job.status === 'finished' ? 200 : job.status === 'failed' ? 422 : 202;
      ctx.body = presentJob10(job);
    },
  },
];
