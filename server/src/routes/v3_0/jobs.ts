import { z } from 'zod';
import { awareDateTime, intText } from '../../contracts/fields.ts';
import { isQueueName, queueNames, type QueueName } from '../../contracts/jobs.ts';
import * as wire from '../../contracts/responses.ts';
import { isoOrNull } from '../../domain/time.ts';
import { AppError, rejected } from '../../errors.ts';
import { speaks10 } from '../../http/compat.ts';
import { route } from '../../http/routes.ts';
import type { JobRecord } from '../../jobs/jobQueue.ts';
import { accountById, listedAccount } from '../load.ts';

/** `queue`: one queue's name, several comma-separated, or the parameter repeated. */
const queueFilter = z
  .union([z.string(), z.array(z.string())])
  .transform((v, ctx): QueueName[] => {
    const names = (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(',')).map((s) => s.trim());
    if (names.every(isQueueName)) return [...new Set(names)];
    ctx.addIssue({ code: 'custom', message: `Must be one of: ${queueNames.join(', ')}.` });
    return z.NEVER;
  })
  .meta({ type: 'string', description: `only jobs of this queue, or of several (repeated or comma-separated): ${queueNames.join(', ')}` });

const listQuery = z.object({
  account_id: intText.optional(),
  limit: intText.optional(),
  queue: queueFilter.optional(),
  // Results can be large (a schedule's per-step power, prices and costs), so a list leaves them out unless asked.
  include: z
    .enum(['result'])
    .optional()
    .meta({ description: "`result`: each job's result, as `GET /jobs/<uuid>` gives it (0.18's dialect)" }),
  ended_after: awareDateTime
    .optional()
    .meta({ description: 'only jobs that ended (finished or failed) at or after this time; those still queued or running are left out' }),
});

/** A finished job's warnings (results of jobs from before warnings, and of other queues, have none). */
const jobWarnings = (job: JobRecord) => (job.queue === 'scheduling' && job.result?.warnings) || [];

/** A job for people: state, timing, arguments, result summary and error. */
export const presentJob = (job: JobRecord, withResult: boolean) => ({
  id: job.id,
  queue: job.queue,
  status: job.status,
  account_id: job.accountId,
  sensor_id: job.sensorId,
  created_at: isoOrNull(job.createdAt)!,
  started_at: isoOrNull(job.startedAt),
  finished_at: isoOrNull(job.finishedAt),
  attempts: job.attempts,
  args: job.args,
  error: job.error,
  error_kind: job.errorKind,
  fallback_job_id: job.fallbackJobId,
  warnings: jobWarnings(job),
  ...(job.progress ? { progress: job.progress } : {}),
  ...(withResult ? { result: job.result } : {}),
});

const capitalized = (queue: string) => queue.charAt(0).toUpperCase() + queue.slice(1);

/** FlexMeasures 1.0's sentence for a job's state, e.g. "Scheduling job in progress.". */
export function jobStatusMessage(job: JobRecord): string {
  const queue = capitalized(job.queue);
  if (job.status === 'queued') return `${queue} job waiting to be processed.`;
  if (job.status === 'started') return `${queue} job in progress.`;
  if (job.status === 'finished') return `${queue} job has finished.`;
  return job.error
    ? `${queue} job failed with ${job.error.replace(/\.$/, '')}.`
    : `${queue} job failed, but no exception information was stored.`;
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

/** The 1.0 dialect's status: 202 while the job waits or runs, 422 once it failed. */
const status10 = (job: JobRecord) => (job.status === 'finished' ? 200 : job.status === 'failed' ? 422 : 202);

/** The jobs of an account, for the UI's job list and schedule inspection, and for clients collecting outcomes. */
export const jobRoutes = [
  route({
    method: 'GET',
    path: '/jobs',
    summary: 'List the jobs of an account, newest first; of some queues, ended since a time, with their results if asked',
    request: { query: listQuery },
    load: async ({ db, user, query }) => ({ account: await listedAccount(db, user, query.account_id) }),
    command: async ({ ctx, query, loaded }) => ({
      jobs: await ctx.services.jobs.list({
        accountId: loaded.account.id,
        queues: query.queue,
        endedFromMs: query.ended_after?.toMillis(),
        limit: Math.min(Math.max(query.limit ?? 100, 1), 1000),
      }),
      withResult: query.include === 'result',
    }),
    response: { schema: z.array(wire.job), present: ({ jobs, withResult }) => jobs.map((j) => presentJob(j, withResult)) },
  }),
  route({
    method: 'GET',
    path: '/jobs/:uuid',
    summary: 'Get a scheduling job with its result: power, state of charge, prices and costs per step',
    request: { params: z.object({ uuid: z.string() }) },
    async load({ ctx, db, params }) {
      const job = await ctx.services.jobs.get(params.uuid);
      if (!job) {
        if (speaks10(ctx.services.config)) throw new AppError(404, { status: 'ERROR', message: `Job ${params.uuid} not found.` });
        throw rejected(400, 'UNRECOGNIZED_UDI_EVENT', `The requested UDI event (id = ${params.uuid}, type = job) is not known.`);
      }
      // A job is read by whoever may read its account.
      const on = job.accountId === null ? null : (await accountById(db, job.accountId, 'read')).on;
      return { job: { value: job, permission: 'read' as const, on } };
    },
    command: async ({ ctx, loaded: { job } }) => ({ job, v10: speaks10(ctx.services.config) }),
    // No flask-json `status: 200` here: `status` is the job's state (in capitals in 1.0's words).
    response: {
      status: ({ job, v10 }) => (v10 ? status10(job) : 200),
      schema: z.union([wire.job, wire.job.extend({ status: z.string(), message: z.string() })]),
      present: ({ job, v10 }) => (v10 ? presentJob10(job) : presentJob(job, true)),
    },
  }),
];
