import { nextDue } from '../domain/cron.ts';
import { isoOrNull } from '../domain/time.ts';
import type { Automation } from '../store/automations.ts';

/** An automation as the API shows it; its next run is the next due after `nowMs` (and after its last run). */
export const presentAutomation = (a: Automation, nowMs: number) => ({
  id: a.id,
  asset_id: a.assetId,
  name: a.name,
  cron: a.cron,
  timezone: a.timezone,
  forecast_sensor_ids: a.forecastSensorIds,
  schedule_sensor_id: a.scheduleSensorId,
  horizon: a.horizon,
  enabled: a.enabled,
  owner_id: a.ownerId,
  last_run: a.lastDueMs !== null && a.lastJobId !== null ? isoOrNull(a.lastDueMs) : null,
  last_job_id: a.lastJobId,
  next_run: a.enabled ? isoOrNull(nextDue(a.cron, a.timezone, Math.max(nowMs, a.lastDueMs ?? 0))) : null,
});
