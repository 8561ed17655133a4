import { z } from 'zod';

/** Money figures of a period (see `commands/assetKpis.ts`), in the schedules' currency. */
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
});
