import type { Knex } from 'knex';

/**
 * How a day-ahead price connector last fared: when its prices were last written, and why the
 * last attempt failed (null once one succeeds), so that a connector without prices says so.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('price_connector', (t) => {
    t.bigInteger('last_written_at');
    t.text('last_error');
  });
}

export async function down(db: Knex): Promise<void> {
  // Plain SQL on both dialects, as in 0008: knex would rebuild the SQLite table.
  for (const column of ['last_error', 'last_written_at']) await db.raw(`ALTER TABLE price_connector DROP COLUMN ${column}`);
}
