import type { Knex } from 'knex';

/**
 * Devices on the LAN over MQTT. A link ties a topic to a sensor, in (measurements a device
 * publishes) or out (setpoints published to it); each link has broker credentials of its own,
 * stored hashed. Readings wait in `mqtt_reading` until their interval closes, so that one
 * acknowledged to the broker survives a restart; the setpoints sent are kept as a record.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('mqtt_link', (t) => {
    t.bigIncrements('id');
    t.bigInteger('sensor_id').notNullable().references('id').inTable('sensor').onDelete('CASCADE');
    // Whose rights the link's readings are stored with; checked again at every write.
    t.bigInteger('owner_id').references('id').inTable('user').onDelete('SET NULL');
    t.string('name', 255).notNullable();
    t.string('direction', 8).notNullable();
    t.string('topic', 1024).notNullable();
    t.string('value_path', 255);
    t.string('time_path', 255);
    t.string('unit', 80).notNullable();
    t.double('scale').notNullable().defaultTo(1);
    t.boolean('inverted').notNullable().defaultTo(false);
    t.double('safe_setpoint');
    t.bigInteger('stale_after_ms');
    t.string('username', 80).notNullable().unique();
    t.string('password_hash', 128).notNullable();
    t.bigInteger('created_at').notNullable();
    // Everything before this time is closed: its means are stored.
    t.bigInteger('closed_until_ms');
    t.bigInteger('last_message_at');
    t.double('last_value');
    t.bigInteger('message_count').notNullable().defaultTo(0);
    t.bigInteger('malformed_count').notNullable().defaultTo(0);
    t.bigInteger('late_count').notNullable().defaultTo(0);
    t.string('last_problem', 500);
    t.index(['sensor_id']);
  });
  await db.schema.createTable('mqtt_reading', (t) => {
    t.bigInteger('link_id').notNullable().references('id').inTable('mqtt_link').onDelete('CASCADE');
    t.bigInteger('time_ms').notNullable();
    t.double('value').notNullable();
    // One reading per link and instant: a repeated message stores once.
    t.primary(['link_id', 'time_ms']);
  });
  await db.schema.createTable('mqtt_setpoint', (t) => {
    t.bigIncrements('id');
    t.bigInteger('link_id').notNullable().references('id').inTable('mqtt_link').onDelete('CASCADE');
    t.bigInteger('sent_at').notNullable();
    t.string('topic', 1024).notNullable();
    t.double('value').notNullable();
    t.string('status', 16).notNullable();
    t.string('job_id', 64);
    t.index(['link_id', 'sent_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('mqtt_setpoint');
  await db.schema.dropTable('mqtt_reading');
  await db.schema.dropTable('mqtt_link');
}
