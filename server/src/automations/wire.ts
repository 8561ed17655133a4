import type { Knex } from 'knex';
import type { z } from 'zod';
import type { automationCreate, automationPatch } from '../contracts/automations.ts';
import type { Reference } from '../policies/references.ts';
import type { Automation, AutomationProps } from '../store/automations.ts';
import { getSensor } from '../store/sensors.ts';
import { nextDue } from './cron.ts';

/** Automations between the wire and the store, shared by the API and the command line. */

type Create = z.output<typeof automationCreate>;
type Patch = z.output<typeof automationPatch>;

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** An automation with its last queued and next due run. */
export const presentAutomation = (a: Automation) => ({
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
  last_run: a.lastDueMs !== null && a.lastJobId !== null ? iso(a.lastDueMs) : null,
  last_job_id: a.lastJobId,
  next_run: a.enabled ? iso(nextDue(a.cron, a.timezone, Math.max(Date.now(), a.lastDueMs ?? 0))) : null,
});

/** The sensors an automation writes into: the forecasts and the schedule are stored there, in its maker's name. */
export const automationReferences = (body: Pick<Patch, 'forecast_sensor_ids' | 'schedule_sensor_id'>): Reference[] => [
  ...(body.forecast_sensor_ids ?? []).map((id, i): Reference => ({
    kind: 'sensor',
    id,
    use: 'write',
    location: 'json',
    field: `forecast_sensor_ids.${i}`,
  })),
  ...(body.schedule_sensor_id
    ? [{ kind: 'sensor', id: body.schedule_sensor_id, use: 'write', location: 'json', field: 'schedule_sensor_id' } as Reference]
    : []),
];

/** The store's fields of a change; absent fields stay as they are. */
export const automationChanges = (body: Patch): Partial<AutomationProps> => ({
  name: body.name,
  cron: body.cron,
  timezone: body.timezone,
  forecastSensorIds: body.forecast_sensor_ids,
  scheduleSensorId: body.schedule_sensor_id,
  horizon: body.horizon,
  enabled: body.enabled,
});

/** A new automation's fields; without a time zone it runs in that of the sensor it names first (else UTC). */
export async function newAutomation(db: Knex, body: Create): Promise<AutomationProps> {
  const named = body.schedule_sensor_id ?? body.forecast_sensor_ids[0];
  const timezone = body.timezone ?? (named ? (await getSensor(db, named))?.timezone : undefined) ?? 'UTC';
  return { ...(automationChanges(body) as AutomationProps), timezone };
}
