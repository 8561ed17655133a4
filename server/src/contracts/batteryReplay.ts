import { z } from 'zod';
import { id, int } from './fields.ts';
import { periods } from './tariffs.ts';

/** The most sizes one replay compares: each is a solve per replayed day. */
export const MAX_REPLAY_SIZES = 4;
/** The longest period one replay covers: a year (a leap year's). */
export const MAX_REPLAY_DAYS = 366;

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date (YYYY-MM-DD).');
const price = z.number().min(-100_000).max(100_000);

/** A battery to replay: its capacity, its power either way, and its round-trip efficiency. */
const size = z.object({
  capacity_kwh: z.number().positive().max(100_000),
  power_kw: z.number().positive().max(100_000),
  efficiency: z.number().gt(0).max(1).default(0.9).describe('Round trip, 0–1 (default 0.9).'),
});

/**
 * The prices the replay plans and counts with: the site's own tariff (its first), a time-of-use
 * tariff given here, or a day-ahead price series (a sensor of prices the caller may read).
 * Prices given here are in EUR/kWh.
 */
const tariff = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('site') }),
  z.object({
    kind: z.literal('time-of-use'),
    price: price.describe('EUR/kWh outside the periods.'),
    periods,
    feed_in_price: price.default(0).describe('EUR/kWh earned for energy sent to the grid.'),
  }),
  z.object({
    kind: z.literal('day-ahead'),
    sensor: id.describe('A sensor of day-ahead prices.'),
    feed_in_price: price.optional().describe('EUR/kWh earned for energy sent to the grid; without it, the day-ahead price.'),
  }),
]);

/** `POST /assets/<id>/battery-replay`. */
export const batteryReplayRequest = z.object({
  sizes: z.array(size).min(1).max(MAX_REPLAY_SIZES),
  tariff,
  start: date.describe("The first day replayed, in the site's zone."),
  end: date.describe("The day after the last day replayed, in the site's zone."),
});
export type BatteryReplayRequest = z.output<typeof batteryReplayRequest>;

/** What a replay job stores: per size, cost with it per month, savings and cycles; the cost without per month. */
export const batteryReplayResult = z.object({
  asset_id: int(),
  start: z.string(),
  end: z.string(),
  currency: z.literal('EUR'),
  days: int(),
  months: z.array(z.object({ month: z.string(), hours: int(), cost_without: z.number() })),
  cost_without: z.number(),
  sizes: z.array(
    z.object({
      capacity_kwh: z.number(),
      power_kw: z.number(),
      efficiency: z.number(),
      months: z.array(z.object({ month: z.string(), cost_with: z.number(), savings: z.number(), cycles: z.number() })),
      cost_with: z.number(),
      savings: z.number(),
      savings_per_year: z.number(),
      cycles: z.number(),
    }),
  ),
  missing_hours: int(),
  unforecast_hours: int(),
  unpriced_hours: int(),
  /** What made the outcome less than a plain replay of measured hours (hours left out, planned blind). */
  warnings: z.array(z.string()),
});
export type BatteryReplayResult = z.infer<typeof batteryReplayResult>;

/** `GET /assets/<id>/battery-replay/<job>`: the job's state, how far it came, and its result once finished. */
export const batteryReplayJob = z.object({
  job: z.string(),
  status: z.enum(['queued', 'started', 'finished', 'failed']),
  progress: z.object({ done: int(), total: int() }).nullable(),
  error: z.string().nullable(),
  result: batteryReplayResult.nullable(),
});

/** The answer to starting a replay. */
export const batteryReplayStarted = z.object({
  job: z.string(),
  status: z.literal('ACCEPTED'),
  message: z.string(),
  'job-url': z.string(),
});
