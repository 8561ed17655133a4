/** Lengths of time the benches count in, in milliseconds. */
export const QUARTER = 900_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** The year the benches' data covers, and how many quarter hours it holds (2023: 365 days). */
export const YEAR_START = Date.UTC(2023, 0, 1);
export const YEAR_VALUES = 35_040;
/** When the benches' schedules start: a Monday after the data. */
export const SCHEDULE_START = Date.parse('2026-01-05T00:00:00Z');
