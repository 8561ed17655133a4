/**
 * The forecaster's figures the server needs too, apart from the methods: importing these loads
 * neither the holiday calendars nor the matrix library (tens of MB the API process does without).
 */

/** Days of measurements a backtest needs before its earliest origin: a week for the weekly lag, a day to fit on. */
export const BACKTEST_LEAD_DAYS = 8;

/** Bumped when a method's results change, so forecasts of the new version get a source of their own. */
export const FORECASTER_VERSION = '2';
