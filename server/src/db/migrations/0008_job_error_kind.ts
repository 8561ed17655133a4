import type { Knex } from 'knex';

/**
 * A failed job's kind (infeasible, unknown-prices, interrupted, forbidden, invalid-input,
 * internal), recorded when it fails, so that nothing reads it back out of the error's text.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('job', (t) => {
    t.string('error_kind', 20);
  });
}

export async function down(db: Knex): Promise<void> {
  // Plain SQL on both dialects: knex rebuilds a SQLite table to drop a column, which would not
  // give back the table as it was.
  await db.raw('ALTER TABLE job DROP COLUMN error_kind');
}
