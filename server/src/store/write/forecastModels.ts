import type { Knex } from 'knex';
import type { ForecastModel } from '../forecastModels.ts';

/** Records a sensor's method choice, replacing the earlier one. */
export async function saveForecastModel(trx: Knex.Transaction, model: Omit<ForecastModel, 'updatedAtMs'>): Promise<void> {
  await trx('forecast_model')
    .insert({
      sensor_id: model.sensorId,
      source_id: model.sourceId,
      method: model.method,
      backtest: JSON.stringify(model.backtest),
      updated_at: Date.now(),
    })
    .onConflict('sensor_id')
    .merge();
}
