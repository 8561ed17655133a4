import type { Knex } from 'knex';

/**
 * Forecasting and automations. `forecast_model` keeps, per sensor, the method its last backtest
 * chose (and the figures it chose by) with the forecaster source its forecasts are stored under.
 * `automation` holds an asset's recurring tasks; `last_due` is the due time of the last run that
 * was queued, which catch-up after a stop and the no-double-runs rule both go by.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('forecast_model', (t) => {
    t.bigInteger('sensor_id').primary().references('id').inTable('sensor').onDelete('CASCADE');
    t.bigInteger('source_id').notNullable().references('id').inTable('data_source').onDelete('CASCADE');
    t.string('method', 40).notNullable();
    t.text('backtest');
    t.bigInteger('updated_at').notNullable();
  });
  await db.schema.createTable('automation', (t) => {
    t.bigIncrements('id');
    t.bigInteger('generic_asset_id').notNullable().references('id').inTable('generic_asset').onDelete('CASCADE');
    t.string('name', 80).notNullable();
    t.string('cron', 120).notNullable();
    t.string('timezone', 64).notNullable();
    // Its runs act with this user's rights; without the user, they fail.
    t.bigInteger('owner_id').references('id').inTable('user').onDelete('SET NULL');
    // JSON list of sensor ids to forecast, then the power sensor to schedule with the stored flex-model and flex-context.
    t.text('forecast_sensor_ids').notNullable();
    t.bigInteger('schedule_sensor_id').references('id').inTable('sensor').onDelete('SET NULL');
    // How far ahead each run forecasts and schedules (ISO 8601).
    t.string('horizon', 32).notNullable();
    t.boolean('enabled').notNullable().defaultTo(true);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_due');
    t.string('last_job_id', 36);
    t.index(['generic_asset_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('automation');
  await db.schema.dropTable('forecast_model');
}
