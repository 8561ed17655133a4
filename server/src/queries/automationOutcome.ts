import type { Knex } from 'knex';
import type { JobQueue, JobRecord } from '../jobs/jobQueue.ts';
import type { AutomationView, RunOutcome } from '../presenters/automations.ts';
import type { Automation } from '../store/automations.ts';
import { sensorNamings } from '../store/sensorNames.ts';

const inProgress = (job: JobRecord): RunOutcome | undefined =>
  job.status === 'queued' || job.status === 'started'
    ? { status: job.status === 'queued' ? 'queued' : 'running', jobId: job.id, finishedAtMs: null, message: null }
    : undefined;

const failed = (job: JobRecord): RunOutcome => ({
  status: 'failed',
  jobId: job.id,
  finishedAtMs: job.finishedAt,
  message: job.error?.replace(/^[A-Za-z]+: /, '') ?? null,
});

/**
 * The outcome of an automation's last run: its own job (forecasts, then queuing the schedule) and
 * the schedule job it queued, which is where a degraded plan shows. A run whose jobs have expired
 * has no outcome to show (null).
 */
export async function lastRunOutcome(jobs: Pick<JobQueue, 'get'>, automation: Automation): Promise<RunOutcome | null> {
  const run = automation.lastJobId === null ? undefined : await jobs.get(automation.lastJobId);
  if (!run) return null;
  if (run.status === 'failed') return failed(run);
  const scheduleJobId = run.queue === 'automation' && run.status === 'finished' ? run.result?.schedule_job_id : undefined;
  const schedule = scheduleJobId ? await jobs.get(scheduleJobId) : undefined;
  const last = schedule ?? run;
  const pending = inProgress(run) ?? inProgress(last);
  if (pending) return pending;
  if (last.status === 'failed') return failed(last);
  const warned = last.queue === 'scheduling' && (last.result?.warnings?.length ?? 0) > 0;
  return { status: warned ? 'warnings' : 'success', jobId: last.id, finishedAtMs: last.finishedAt, message: null };
}

/**
 * An automation with what its list shows besides its own fields: its last run's outcome, and its
 * sensors named as people name them ("Home battery power": several devices each have a "power").
 */
export async function automationView(db: Knex, jobs: Pick<JobQueue, 'get'>, automation: Automation): Promise<AutomationView> {
  const ids = [...automation.forecastSensorIds, ...(automation.scheduleSensorId === null ? [] : [automation.scheduleSensorId])];
  const namings = await sensorNamings(db, ids);
  return {
    ...automation,
    outcome: await lastRunOutcome(jobs, automation),
    sensorNames: Object.fromEntries([...namings].map(([id, n]) => [String(id), n.name])),
  };
}
