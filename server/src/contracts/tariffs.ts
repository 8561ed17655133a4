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

type Period = z.output<typeof period>;

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** The minutes of a day a window covers, as [start, end) ranges (two when it wraps past midnight). */
function ranges(p: Period): [number, number][] {
  const [a, b] = [minutesOf(p.from), minutesOf(p.to)];
  return a <= b
    ? [[a, b]]
    : [
        [a, 1440],
        [0, b],
      ];
}

const sameDays = (p: Period, q: Period) => p.days === 'all' || q.days === 'all' || p.days === q.days;
const sameMonths = (p: Period, q: Period) => !p.months || !q.months || p.months.some((m) => q.months!.includes(m));
const sameMinutes = (p: Period, q: Period) => ranges(p).some(([a, b]) => ranges(q).some(([c, d]) => a < d && c < b));
const describePeriod = (p: Period, i: number) =>
  `period ${i + 1} (${p.days}${p.months ? `, months ${p.months.join(',')}` : ''}, ${p.from}–${p.to})`;

/**
 * Time-of-use periods must each cover some time and never the same time as another: a window of
 * 07:00–07:00 would silently never apply, and of two overlapping ones only the first would, so
 * both are refused rather than guessed at (a summer peak names the summer months; the rest of the
 * year's peak names the others).
 */
export const periods = z
  .array(period)
  .max(50)
  .default([])
  .superRefine((list, ctx) => {
    list.forEach((p, i) => {
      if (ranges(p).every(([a, b]) => a === b)) {
        const message = `Ends when it starts (${p.from}–${p.to}) and so covers no time; for the whole day use 00:00–24:00.`;
        ctx.addIssue({ code: 'custom', path: [i, 'to'], message });
        return;
      }
      const earlier = list.findIndex((q, j) => j < i && sameDays(p, q) && sameMonths(p, q) && sameMinutes(p, q));
      if (earlier >= 0) {
        const message = `Overlaps ${describePeriod(list[earlier], earlier)}: each time of day may belong to one period only.`;
        ctx.addIssue({ code: 'custom', path: [i, 'from'], message });
      }
    });
  });

/**
 * A tariff as entered: prices in `unit` (e.g. EUR/kWh), or in the unit of each sensor they are
 * written to when it is left out; they are converted to the sensor's unit when written, and the
 * tariff is shown back as entered. A fixed tariff has only `price`; a time-of-use tariff adds
 * periods that never overlap. A feed-in price, when given, is written to the production price sensor.
 */
export const tariffDefinition = z
  .object({
    name: text(80),
    timezone,
    consumption_price_sensor: id,
    unit: z.string().max(20).optional(),
    price: z.number(),
    periods,
    production_price_sensor: id.optional(),
    feed_in_price: z.number().optional(),
  })
  .refine((t) => (t.production_price_sensor === undefined) === (t.feed_in_price === undefined), {
    message: 'A feed-in price needs a production price sensor, and the other way round.',
    path: ['feed_in_price'],
  });
export type TariffDefinition = z.output<typeof tariffDefinition>;

/** What a stored tariff and a stored price connector both answer with: which one, whose, since when. */
const storedOnAsset = z.object({
  id: z.number().int(),
  asset_id: z.number().int(),
  created_at: z.string(),
});

/** A stored tariff. */
export const tariff = storedOnAsset.extend({ definition: z.record(z.string(), z.unknown()) });

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

export const priceConnector = storedOnAsset.extend({
  sensor: z.number().int(),
  bidding_zone: z.string(),
  bidding_zone_name: z.string(),
  /** When its prices were last written; null before the first write. */
  last_written_at: z.string().nullable(),
  /** Why its last attempt wrote nothing (offline, no token, no data); null once one succeeds. */
  last_error: z.string().nullable(),
});

export const biddingZoneList = z.array(z.object({ code: z.string(), name: z.string() }));

/** What the server can tell about the price platform: whether a token is set, never the token. */
export const pricePlatform = z.object({ token_configured: z.boolean() });
