import type { Knex } from 'knex';

/**
 * UDI events of the legacy API (versions 1.2–2.0): which scheduling job a device's state-of-charge
 * event triggered, so that a later device-message request finds that job's schedule.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('udi_event', (t) => {
    t.bigInteger('sensor_id').notNullable().references('id').inTable('sensor').onDelete('CASCADE');
    // The device's own event number; they only increase per device.
    t.bigInteger('event_id').notNullable();
    t.string('event_type', 40).notNullable();
    t.string('job_id', 36).notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['sensor_id', 'event_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('udi_event');
}
