import { z } from 'zod';
import { cronProblem } from '../domain/cron.ts';
import { parseIsoDuration } from '../domain/time.ts';
import { id, text, timezone } from './fields.ts';

const fields = {
  name: text(80),
  /** Five or six fields (seconds first when six), read in `timezone`. */
  cron: z.string().trim().min(1).max(120),
  timezone,
  forecast_sensor_ids: z.array(id).max(100),
  schedule_sensor_id: id.nullable(),
  /** Kept as written (`P1D`, `PT36H`): each run measures it from its own due time, in the time zone. */
  horizon: z
    .string()
    .max(32)
    .refine((t) => {
      const d = parseIsoDuration(t);
      return typeof d !== 'string' && d.ms > 0;
    }, 'Not a positive ISO 8601 duration.'),
  enabled: z.boolean(),
};

/** Checks the cron expression in its time zone (or UTC until one is known). */
const withValidCron = <T extends { cron?: string; timezone?: string }>(body: T, ctx: z.RefinementCtx) => {
  if (body.cron === undefined) return;
  const problem = cronProblem(body.cron, body.timezone ?? 'UTC');
  if (problem) ctx.addIssue({ code: 'custom', path: ['cron'], message: `Not a valid cron expression: ${problem}` });
};

/** `POST /assets/<id>/automations`: what to run and when. */
export const automationCreate = z
  .strictObject({
    ...fields,
    timezone: fields.timezone.optional(),
    forecast_sensor_ids: fields.forecast_sensor_ids.default([]),
    schedule_sensor_id: fields.schedule_sensor_id.default(null),
    horizon: fields.horizon.default('P1D'),
    enabled: fields.enabled.default(true),
  })
  .superRefine(withValidCron);

/** `PATCH /automations/<id>`: any of the fields. */
export const automationPatch = z.strictObject(fields).partial().superRefine(withValidCron);
