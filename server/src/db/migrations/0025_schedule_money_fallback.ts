import type { Knex } from 'knex';

/**
 * Whether a schedule's money came from the fallback scheduler (the solver found no feasible plan):
 * the money figures count such plans, but mark them as degraded rather than as a plain figure.
 * Plans kept before this migration are taken as optimal, which is what they were stored as.
 * And the order plans were stored in: of two plans made at the same belief time, the later
 * stored is the one in force (null for those kept before, which come first).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('schedule_money', (t) => {
    t.boolean('fallback').notNullable().defaultTo(false);
    t.bigInteger('stored_seq');
  });
}

export async function down(db: Knex): Promise<void> {
  // Plain SQL on both dialects, as in 0008: knex would rebuild the SQLite table.
  await db.raw('ALTER TABLE schedule_money DROP COLUMN stored_seq');
  await db.raw('ALTER TABLE schedule_money DROP COLUMN fallback');
}
