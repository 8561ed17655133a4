import type { Knex } from 'knex';

/**
 * The operator's cockpit: what each schedule costs against doing nothing, kept beyond the job
 * records (which are forgotten after the planning TTL) so that monthly figures stay available;
 * notifications per account with their acknowledgement; where an account wants them sent; and
 * tariffs and day-ahead price connectors, written ahead as price beliefs.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('schedule_money', (t) => {
    t.string('job_id', 36).primary();
    // The schedule's first device: the KPI of an asset reads the schedules of its sensors.
    t.bigInteger('sensor_id').notNullable().references('id').inTable('sensor').onDelete('CASCADE');
    t.bigInteger('start_ms').notNullable();
    t.bigInteger('end_ms').notNullable();
    t.bigInteger('step_ms').notNullable();
    t.bigInteger('belief_time_ms').notNullable();
    t.string('currency', 16);
    // Per-step prices, inflexible power, and each device's planned and do-nothing power (JSON).
    t.text('series').notNullable();
    t.index(['sensor_id', 'start_ms']);
  });
  await db.schema.createTable('notification', (t) => {
    t.bigIncrements('id');
    t.bigInteger('account_id').notNullable().references('id').inTable('account').onDelete('CASCADE');
    t.string('kind', 40).notNullable();
    // What the notification is about (a job, a sensor's stale spell): one notification per subject.
    t.string('subject', 120).notNullable();
    t.text('message').notNullable();
    t.bigInteger('sensor_id').references('id').inTable('sensor').onDelete('SET NULL');
    t.string('job_id', 36);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('acknowledged_at');
    t.bigInteger('acknowledged_by').references('id').inTable('user').onDelete('SET NULL');
    t.unique(['account_id', 'subject']);
    t.index(['account_id', 'created_at']);
  });
  await db.schema.createTable('notification_setting', (t) => {
    t.bigInteger('account_id').primary().references('id').inTable('account').onDelete('CASCADE');
    t.string('webhook_url', 2000);
  });
  await db.schema.createTable('tariff', (t) => {
    t.bigIncrements('id');
    t.bigInteger('asset_id').notNullable().references('id').inTable('generic_asset').onDelete('CASCADE');
    // Whose rights the writer uses; a tariff whose owner is gone writes nothing.
    t.bigInteger('owner_id').references('id').inTable('user').onDelete('SET NULL');
    t.string('name', 80).notNullable();
    // The price rules and the sensors they are written to (JSON, see contracts/tariffs.ts).
    t.text('definition').notNullable();
    t.bigInteger('created_at').notNullable();
  });
  await db.schema.createTable('price_connector', (t) => {
    t.bigIncrements('id');
    t.bigInteger('asset_id').notNullable().references('id').inTable('generic_asset').onDelete('CASCADE');
    t.bigInteger('owner_id').references('id').inTable('user').onDelete('SET NULL');
    // The price sensor the day-ahead prices of the bidding zone are written to.
    t.bigInteger('sensor_id').notNullable().references('id').inTable('sensor').onDelete('CASCADE');
    t.string('bidding_zone', 20).notNullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('price_connector');
  await db.schema.dropTable('tariff');
  await db.schema.dropTable('notification_setting');
  await db.schema.dropTable('notification');
  await db.schema.dropTable('schedule_money');
}
