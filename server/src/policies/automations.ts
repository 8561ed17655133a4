import type { Knex } from 'knex';
import type { Config } from '../config.ts';
import type { z } from 'zod';
import type { automationPatch } from '../contracts/automations.ts';
import { shortestInterval } from '../domain/cron.ts';
import { parseIsoDuration } from '../domain/time.ts';
import { countAutomations } from '../store/automations.ts';
import type { Reference } from './references.ts';

type Patch = z.output<typeof automationPatch>;

/** What an automation may name and how often and how far it may run, shared by the API and the command line. */

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

/** A limit an automation breaks: the field and the message, for the API's 422 and the CLI's error. */
export interface LimitProblem {
  field: 'cron' | 'horizon' | '_schema';
  message: string;
}

/**
 * The limits on what one account may start (issue 20): no automation runs more often than the
 * setting allows (at least a minute apart), none looks further ahead than the longest forecast,
 * and an asset and an account have at most so many.
 * @param fields the automation's cron, time zone and horizon after the change.
 * @param adding whether a new automation is added to the asset (counted against the maxima).
 */
export async function automationLimitProblem(
  db: Knex,
  limits: Config['limits'],
  fields: { cron: string; timezone: string; horizon: string },
  asset: { id: number; account_id: number | null },
  adding: boolean,
): Promise<LimitProblem | undefined> {
  const gapMs = shortestInterval(fields.cron, fields.timezone, Date.now());
  if (gapMs < limits.automationMinIntervalMs) {
    return {
      field: 'cron',
      message: `Runs ${gapMs / 1000} s apart; automations run at most once every ${limits.automationMinIntervalMs / 1000} s.`,
    };
  }
  const horizon = parseIsoDuration(fields.horizon);
  if (typeof horizon !== 'string' && horizon.ms > limits.maxForecastMs) {
    return { field: 'horizon', message: `Longer than the longest forecast (${limits.maxForecastMs / 86_400_000} days).` };
  }
  if (!adding) return undefined;
  if ((await countAutomations(db, { assetId: asset.id })) >= limits.automationsPerAsset) {
    return { field: '_schema', message: `Asset ${asset.id} has the most automations allowed (${limits.automationsPerAsset}).` };
  }
  if ((await countAutomations(db, { accountId: asset.account_id })) >= limits.automationsPerAccount) {
    return {
      field: '_schema',
      message: `The account of asset ${asset.id} has the most automations allowed (${limits.automationsPerAccount}).`,
    };
  }
  return undefined;
}
