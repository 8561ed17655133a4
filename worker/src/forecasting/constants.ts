/**
 * The forecaster's figures the server needs too, apart from the methods: importing these loads
 * neither the holiday calendars nor the matrix library (tens of MB the API process does without).
 */

/** Days of measurements a backtest needs before its earliest origin: a week for the weekly lag, a day to fit on. */
export const BACKTEST_LEAD_DAYS = 8;

/** Bumped when a method's results change, so forecasts of the new version get a source of their own. */
export const FORECASTER_VERSION = '2';

/**
 * Days of history over which a PV array's geometry forecast hands over to the learned one, linearly
 * (its weight 1 − days/28): by then the regression has four weeks to fit and the method is chosen by backtest.
 */
export const GEOMETRY_HANDOVER_DAYS = 28;
