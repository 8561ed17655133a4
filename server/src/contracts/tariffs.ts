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

/** Bidding zones of the ENTSO-E day-ahead market a connector may follow, by EIC code. */
export const biddingZones = {
  '10YNL----------L': 'Netherlands',
  '10YBE----------2': 'Belgium',
  '10Y1001A1001A82H': 'Germany–Luxembourg',
  '10YFR-RTE------C': 'France',
  '10YAT-APG------L': 'Austria',
  '10YCH-SWISSGRIDZ': 'Switzerland',
  '10YDK-1--------W': 'Denmark 1 (west)',
  '10YDK-2--------M': 'Denmark 2 (east)',
  '10Y1001A1001A46L': 'Sweden 3',
  '10Y1001A1001A47J': 'Sweden 4',
  '10YNO-1--------2': 'Norway 1',
  '10YFI-1--------U': 'Finland',
  '10YPL-AREA-----S': 'Poland',
  '10YES-REE------0': 'Spain',
  '10YPT-REN------W': 'Portugal',
  '10YCZ-CEPS-----N': 'Czechia',
} as const;

const zoneCodes = Object.keys(biddingZones) as [keyof typeof biddingZones, ...(keyof typeof biddingZones)[]];

/** A day-ahead price connector as entered: which price sensor gets which bidding zone's prices. */
export const priceConnectorInput = z.object({
  sensor: id,
  bidding_zone: z.enum(zoneCodes),
});

export const priceConnector = z.object({
  id: z.number().int(),
  asset_id: z.number().int(),
  sensor: z.number().int(),
  bidding_zone: z.string(),
  bidding_zone_name: z.string(),
  created_at: z.string(),
  /** When its prices were last written; null before the first write. */
  last_written_at: z.string().nullable(),
  /** Why its last attempt wrote nothing (offline, no token, no data); null once one succeeds. */
  last_error: z.string().nullable(),
});

export const biddingZoneList = z.array(z.object({ code: z.string(), name: z.string() }));
