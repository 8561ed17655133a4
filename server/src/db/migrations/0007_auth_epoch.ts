import type { Knex } from 'knex';

/**
 * One counter, raised in the same transaction as every change to a user, its roles or its
 * tokens: servers keep authenticated users in memory and trust what they keep only while the
 * counter they read it with is still current, whichever process made the change.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('auth_epoch', (t) => {
    t.integer('id').primary();
    t.bigInteger('epoch').notNullable();
  });
  await db('auth_epoch').insert({ id: 1, epoch: 0 });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('auth_epoch');
}
