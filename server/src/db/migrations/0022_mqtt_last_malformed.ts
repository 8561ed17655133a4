import type { Knex } from 'knex';

/**
 * When a device link last got a payload it could not read: the sensor's data health shows it
 * beside the count, so an operator can tell a device that is still sending garbage from one that
 * did once.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('mqtt_link', (t) => {
    t.bigInteger('last_malformed_at');
  });
}

export async function down(db: Knex): Promise<void> {
  // Plain SQL on both dialects, as in 0008: knex would rebuild the SQLite table.
  await db.raw('ALTER TABLE mqtt_link DROP COLUMN last_malformed_at');
}
