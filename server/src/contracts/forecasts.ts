import { z } from 'zod';
import { awareDateTime, id, isoDuration } from './fields.ts';

/** Regressor sensors, as FlexMeasures 1.0's forecaster config names them; all are read alike here. */
const regressorConfig = z.strictObject({
  regressors: z.array(id).optional(),
  'future-regressors': z.array(id).optional(),
  'past-regressors': z.array(id).optional(),
});

/**
 * `POST /sensors/<id>/forecasts/trigger` (FlexMeasures 1.0): the window (start with end or
 * duration; default from now for two days), the belief time (`prior`), the longest horizon of
 * one forecast (longer windows are forecast in rolling cycles) and regressor sensors.
 */
export const forecastTrigger = z.strictObject({
  start: awareDateTime.optional(),
  end: awareDateTime.optional(),
  duration: isoDuration.optional(),
  prior: awareDateTime.optional(),
  'max-forecast-horizon': isoDuration.optional(),
  regressors: z.array(id).optional(),
  config: regressorConfig.optional(),
});

export type ForecastTrigger = z.output<typeof forecastTrigger>;
