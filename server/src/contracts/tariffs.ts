import { z } from 'zod';
import { id, text, timezone } from './fields.ts';

/** A wall-clock time of day, "HH:mm" (24:00 ends the day). */
const clock = z.string().regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'Use HH:mm, e.g. 07:00.');

/**
 * A time-of-use period: a price on some months (a season), some days, between two wall-clock
 * times. `from` after `to` wraps around midnight (a night tariff 23:00–07:00).
 */
const period = z.object({
  months: z.array(z.number().int().min(1).max(12)).min(1).max(12).optional(),
  days: z.enum(['all', 'weekdays', 'weekend']).default('all'),
  from: clock.default('00:00'),
  to: clock.default('24:00'),
  price: z.number(),
});

/**
 * A tariff as entered: prices in the unit of the sensor they are written to (e.g. EUR/MWh). A
 * fixed tariff has only `price`; a time-of-use tariff adds periods, the first matching one wins.
 * A feed-in price, when given, is written to the production price sensor.
 */
export const tariffDefinition = z
  .object({
    name: text(80),
    timezone,
    consumption_price_sensor: id,
    price: z.number(),
    periods: z.array(period).max(50).default([]),
    production_price_sensor: id.optional(),
    feed_in_price: z.number().optional(),
  })
  .refine((t) => (t.production_price_sensor === undefined) === (t.feed_in_price === undefined), {
    message: 'A feed-in price needs a production price sensor, and the other way round.',
    path: ['feed_in_price'],
  });
export type TariffDefinition = z.output<typeof tariffDefinition>;

/** A stored tariff. */
export const tariff = z.object({
  id: z.number().int(),
  asset_id: z.number().int(),
  definition: z.record(z.string(), z.unknown()),
  created_at: z.string(),
});
