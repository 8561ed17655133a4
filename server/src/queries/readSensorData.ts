import type { Knex } from 'knex';
import { defaultInstantaneousStep, gridLength, resampleSeries } from '../domain/resample.ts';
import { MAX_VALUES, unitMismatch, type GetType, type Problems } from '../domain/sensorData.ts';
import { conversion, isStockUnit } from '../domain/units.ts';
import { mostRecentBeliefSeries } from '../store/beliefs.ts';
import type { Sensor } from '../store/sensors.ts';

/** What a download asks for. */
export interface DataRequest {
  startMs: number;
  durationMs: number;
  unit: string;
  /** The step of the answer; default: the sensor's resolution (a window-dependent one for instantaneous sensors). */
  stepMs?: number;
  beliefsBeforeMs?: number;
  horizonAtLeastMs?: number;
  sourceIds?: number[];
  /** FlexMeasures 1.0: only the data of sources of this account, resp. of this type. */
  sourceAccountId?: number;
  sourceType?: string;
  type?: GetType;
}

/**
 * Reads a sensor's data on the grid `[start, start + duration)`: the most recent belief per event,
 * one value per event, resampled to the step and converted to the unit.
 * @param db the store.
 * @param sensor the sensor.
 * @param request window, step, unit and belief filters.
 * @returns one value per step (null for gaps) with the step and the resolution of the data
 *   (zero for instantaneous sensors), or the problems with the request.
 */
export async function readSensorData(
  db: Knex,
  sensor: Sensor,
  request: DataRequest,
): Promise<{ values: (number | null)[]; stepMs: number; resolutionMs: number } | { problems: Problems }> {
  const res = sensor.event_resolution_ms;
  const { startMs, durationMs } = request;
  const endMs = startMs + durationMs;
  const stepMs = request.stepMs ?? (res > 0 ? res : defaultInstantaneousStep(durationMs));
  if (gridLength({ startMs, endMs, stepMs }) > MAX_VALUES) {
    return { problems: { [request.stepMs ? 'resolution' : 'duration']: [`Too many values: at most ${MAX_VALUES} per request.`] } };
  }
  // Instantaneous data keeps resolution zero, so it converts only between rates or between amounts.
  const resolutionMs = res === 0 ? 0 : stepMs;
  const c = conversion(sensor.unit, request.unit, resolutionMs);
  if (!c) return { problems: { _schema: [unitMismatch(sensor, request.unit)] } };

  let horizonAtLeastMs = request.horizonAtLeastMs;
  let horizonAtMostMs: number | undefined;
  if (request.type === 'GetMeterDataRequest') horizonAtMostMs = 0;
  if (request.type === 'GetPrognosisRequest') horizonAtLeastMs = Math.max(horizonAtLeastMs ?? 0, 0);
  const beliefs = await mostRecentBeliefSeries(db, {
    sensorId: sensor.id,
    // The sensor as this request read it: not read again.
    eventResolutionMs: res,
    startMs,
    endMs,
    beliefsBeforeMs: request.beliefsBeforeMs,
    horizonAtLeastMs,
    horizonAtMostMs,
    sourceIds: request.sourceIds,
    sourceAccountIds: request.sourceAccountId === undefined ? undefined : [request.sourceAccountId],
    sourceTypes: request.sourceType === undefined ? undefined : [request.sourceType],
  });
  // Columns from the read to the grid; the answer's array is made once, converted on the way.
  const grid = resampleSeries(beliefs, { startMs, endMs, stepMs, eventResolutionMs: res, stock: isStockUnit(sensor.unit) });
  const identity = c.scale === 1 && c.offset === 0;
  const values = new Array<number | null>(grid.length);
  for (let i = 0; i < grid.length; i++) {
    const v = grid[i];
    values[i] = Number.isNaN(v) ? null : identity ? v : v * c.scale + c.offset;
  }
  return { values, stepMs, resolutionMs };
}
