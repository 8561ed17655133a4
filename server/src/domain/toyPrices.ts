/**
 * Toy day-ahead prices (EUR/MWh) for the toy account, so that its battery can be scheduled out
 * of the box: per hour of the day, cheap at night and around noon, dear at the morning and
 * evening peaks — a day shape that gives a battery a reason to shift.
 */
export const TOY_DAY_PRICES: readonly number[] = [
  38, 35, 33, 32, 33, 40, 62, 85, 78, 60, 45, 36, 30, 28, 32, 44, 68, 96, 110, 92, 74, 60, 50, 42,
];

/** Days of prices written: today and the two coming days, in the market's zone. */
export const TOY_PRICE_DAYS = 3;
