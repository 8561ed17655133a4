/** Lengths of time the benches count in, in milliseconds. */
export const QUARTER = 900_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;
