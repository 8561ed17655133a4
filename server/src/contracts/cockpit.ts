import { z } from 'zod';

/** Money figures of a period (see `queries/assetKpis.ts`), in the schedules' currency. */
const kpiFigures = z.object({
  plan_cost: z.number(),
  baseline_cost: z.number(),
  planned_savings: z.number(),
  realised_cost: z.number().nullable(),
  realised_savings: z.number().nullable(),
  steps: z.number().int(),
  measured_steps: z.number().int(),
});

const periodFigures = kpiFigures.extend({ period: z.string() });

/** `GET /assets/<id>/kpis`: what the asset's schedules cost against doing nothing, planned and realised. */
export const assetKpis = z.object({
  asset_id: z.number().int(),
  /** Null when the prices were fixed (no price sensor) or the schedules used different currencies. */
  currency: z.string().nullable(),
  /** The zone whose days and months the periods are. */
  timezone: z.string(),
  total: kpiFigures,
  days: z.array(periodFigures),
  months: z.array(periodFigures),
  /** FlexMeasures 1.0's sensor KPIs (the asset's `sensors_to_show_as_kpis`). */
  data: z.array(
    z.object({
      title: z.string(),
      unit: z.string(),
      sensor: z.number().int(),
      downsample_value: z.number(),
      downsample_function: z.enum(['sum', 'min', 'max', 'mean']),
    }),
  ),
});

/** What a notification is about. */
export const notificationKinds = [
  'schedule-failed',
  'schedule-fallback',
  'schedule-warnings',
  'target-missed',
  'sensor-stale',
  'automation-failed',
  'prices-failed',
] as const;

/** A notification (`GET /notifications`, and the body posted to an account's webhook). */
export const notification = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  kind: z.enum(notificationKinds),
  /** What it is about (a job, a sensor's stale spell); one notification per subject. */
  subject: z.string(),
  message: z.string(),
  sensor_id: z.number().int().nullable(),
  job_id: z.string().nullable(),
  created_at: z.string(),
  acknowledged_at: z.string().nullable(),
  acknowledged_by: z.number().int().nullable(),
});

/** Where an account's notifications are posted besides the mail outbox. */
export const notificationSettings = z.object({ webhook_url: z.string().max(2000).nullable() });

/** `GET /assets/<id>/now`: the latest value of each sensor of a site and the health of its data. */
export const siteNow = z.object({
  asset_id: z.number().int(),
  now: z.string(),
  sensors: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      unit: z.string(),
      /** The asset the sensor belongs to (the site or one below it). */
      asset: z.string(),
      resolution_minutes: z.number(),
      /** The latest measured event (not a plan or forecast); its age counts from the event's end. */
      latest: z.object({ event_start: z.string(), value: z.number(), age_seconds: z.number() }).nullable(),
      /** The latest measurement ended more than twice the resolution ago. */
      stale: z.boolean(),
      /** Intervals of today (sensor's zone) that ended without a measurement; null for instantaneous sensors. */
      gaps_today: z.number().int().nullable(),
      last_upload: z.object({ at: z.string(), source: z.string() }).nullable(),
      /** Payloads the sensor's MQTT device links could not read: how many, the last one's arrival; null without such a link. */
      malformed_messages: z.object({ count: z.number().int(), last_at: z.string().nullable() }).nullable(),
    }),
  ),
});
