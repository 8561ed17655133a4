import type { Knex } from 'knex';

/**
 * How far a running job has come (steps done of all its steps), for jobs that report it as they
 * run (a battery replay, day by day); null for jobs that do not.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('job', (t) => {
    t.integer('progress_done');
    t.integer('progress_total');
  });
}

export async function down(db: Knex): Promise<void> {
  // Plain SQL on both dialects, as in 0008: knex would rebuild the SQLite table.
  await db.raw('ALTER TABLE job DROP COLUMN progress_total');
  await db.raw('ALTER TABLE job DROP COLUMN progress_done');
}
