import type { Knex } from 'knex';

/**
 * Whether a user has chosen their password. A user made without one (an invitation) or whose
 * password was reset has a random one nobody knows: only then may an administrator hand out a
 * set-password link, which would otherwise take over a colleague's account. Existing users count
 * as having chosen theirs.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('user', (t) => {
    t.boolean('password_chosen').notNullable().defaultTo(true);
  });
}

export async function down(db: Knex): Promise<void> {
  // Plain SQL on both dialects, as in 0008: knex would rebuild the SQLite table. `user` is quoted for PostgreSQL.
  await db.raw('ALTER TABLE "user" DROP COLUMN password_chosen');
}
