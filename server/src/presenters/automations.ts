import { nextDue } from '../domain/cron.ts';
import { isoOrNull } from '../domain/time.ts';
import type { Automation } from '../store/automations.ts';

/** How an automation's last run went, as its list shows it. */
export interface RunOutcome {
  /** `warnings`: a schedule that finished, but not as asked (inputs extended, fallback, target missed). */
  status: 'queued' | 'running' | 'success' | 'warnings' | 'failed';
  /** The job to look at: the run's schedule job when it queued one, else the run's own. */
  jobId: string;
  finishedAtMs: number | null;
  /** Why it failed, in the job's words without the exception's name; else null. */
  message: string | null;
}

/** An automation's last run's outcome as the API shows it. */
const presentOutcome = (o: RunOutcome) => ({
  status: o.status,
  job_id: o.jobId,
  finished_at: isoOrNull(o.finishedAtMs),
  message: o.message,
});

/** An automation with its last run's outcome (null: none to show) and its sensors' names for people, by id. */
export type AutomationView = Automation & { outcome: RunOutcome | null; sensorNames: Record<string, string> };

/** An automation as the API shows it; its next run is the next due after `nowMs` (and after its last run). */
export const presentAutomation = (a: AutomationView, nowMs: number) => ({
  id: a.id,
  asset_id: a.assetId,
  name: a.name,
  cron: a.cron,
  timezone: a.timezone,
  forecast_sensor_ids: a.forecastSensorIds,
  schedule_sensor_id: a.scheduleSensorId,
  sensor_names: a.sensorNames,
  horizon: a.horizon,
  enabled: a.enabled,
  owner_id: a.ownerId,
  last_run: a.lastDueMs !== null && a.lastJobId !== null ? isoOrNull(a.lastDueMs) : null,
  last_job_id: a.lastJobId,
  last_outcome: a.outcome ? presentOutcome(a.outcome) : null,
  next_run: a.enabled ? isoOrNull(nextDue(a.cron, a.timezone, Math.max(nowMs, a.lastDueMs ?? 0))) : null,
});
