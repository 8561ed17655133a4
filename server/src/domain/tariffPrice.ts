import { DateTime } from 'luxon';

/**
 * The parts of a tariff its price depends on (the contract's `TariffDefinition` has them): the
 * domain names its own shape, as it imports nothing above it.
 */
export interface TimeOfUseTariff {
  timezone: string;
  price: number;
  periods: { months?: number[]; days: 'all' | 'weekdays' | 'weekend'; from: string; to: string; price: number }[];
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/** Whether a wall-clock minute of the day lies in [from, to), wrapping past midnight when from > to. */
function inWindow(minute: number, from: string, to: string): boolean {
  const [a, b] = [minutesOf(from), minutesOf(to)];
  return a <= b ? a <= minute && minute < b : minute >= a || minute < b;
}

/**
 * The consumption price of a tariff for the interval starting at `startMs`, judged by its start
 * in the tariff's time zone (so a DST day keeps its wall-clock hours).
 */
export function tariffPriceAt(tariff: TimeOfUseTariff, startMs: number): number {
  const local = DateTime.fromMillis(startMs, { zone: tariff.timezone });
  const weekend = local.weekday >= 6;
  const minute = local.hour * 60 + local.minute;
  const match = tariff.periods.find(
    (p) =>
      (!p.months || p.months.includes(local.month)) &&
      (p.days === 'all' || (p.days === 'weekend') === weekend) &&
      inWindow(minute, p.from, p.to),
  );
  return match ? match.price : tariff.price;
}
