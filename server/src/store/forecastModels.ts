import type { Knex } from 'knex';
import type { Backtest, MethodName } from '../../../worker/src/tasks.ts';

/** The forecasting method a sensor's last backtest chose, the figures it chose by, and its source. */
export interface ForecastModel {
  sensorId: number;
  sourceId: number;
  method: MethodName;
  backtest: Backtest | null;
  updatedAtMs: number;
}

/** @returns the sensor's last method choice, or undefined when it was never forecast. */
export async function getForecastModel(db: Knex, sensorId: number): Promise<ForecastModel | undefined> {
  const row = await db('forecast_model').where({ sensor_id: sensorId }).first();
  if (!row) return undefined;
  return {
    sensorId: Number(row.sensor_id),
    sourceId: Number(row.source_id),
    method: row.method,
    backtest: row.backtest ? JSON.parse(row.backtest) : null,
    updatedAtMs: Number(row.updated_at),
  };
}
