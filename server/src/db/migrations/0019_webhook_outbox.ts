import type { Knex } from 'knex';

/**
 * Notifications waiting to be posted to their account's webhook: delivery runs on a clock of its
 * own, so that a slow or unreachable receiver never holds the job or check that raised them.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('webhook_delivery', (t) => {
    t.bigIncrements('id');
    t.bigInteger('notification_id').notNullable().references('id').inTable('notification').onDelete('CASCADE');
    t.integer('attempts').notNullable().defaultTo(0);
    // When the next attempt is due (ms): retries back off.
    t.bigInteger('next_at').notNullable();
    t.index(['next_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('webhook_delivery');
}
