import type { Knex } from 'knex';

/**
 * A count of the writes to what a schedule is resolved and computed from, raised by triggers in
 * the writing transaction, whichever process writes: a reader that finds the count where it was
 * knows that none of those rows changed since (see docs/job-reuse.md). With the newest belief
 * time ever written, it also knows that no belief has become visible since a given belief time.
 *
 * SQLite only: its single writer serializes the count for free. On PostgreSQL every writer would
 * queue for the counter's row until it commits, so that store keeps no count and its readers
 * always read.
 *
 * Not counted: the queue's jobs, automations (a run compares the automation itself), notifications
 * and their deliveries, the audit log, forecast models, tokens, schedule money, MQTT links and
 * their traffic, UDI events; nor a user's sign-in and last-seen times.
 */
const COUNTED = [
  'account',
  'account_role',
  'account_account_role',
  'role',
  'user_role',
  'generic_asset_type',
  'generic_asset',
  'generic_asset_flex',
  'sensor',
  'data_source',
  'sensor_source',
  'annotation',
  'auth_epoch',
  'tariff',
  'price_connector',
  'recurring_soc_target',
];

/** The user columns whose change may change rights (not the sign-in and last-seen times). */
const USER_COLUMNS = ['email', 'username', 'password_hash', 'active', 'timezone', 'account_id', 'password_chosen'];

const BUMP = 'UPDATE store_change SET n = n + 1 WHERE id = 1;';
const BUMP_BELIEF = 'UPDATE store_change SET n = n + 1, newest_belief_time = MAX(newest_belief_time, NEW.belief_time) WHERE id = 1;';

/** Each trigger's name, event and body. */
function triggers(): [string, string, string][] {
  const all: [string, string, string][] = [];
  for (const table of COUNTED) {
    for (const event of ['INSERT', 'UPDATE', 'DELETE']) all.push([`${table}_${event.toLowerCase()}`, `${event} ON "${table}"`, BUMP]);
  }
  all.push(['user_insert', 'INSERT ON "user"', BUMP]);
  all.push(['user_update', `UPDATE OF ${USER_COLUMNS.join(', ')} ON "user"`, BUMP]);
  all.push(['user_delete', 'DELETE ON "user"', BUMP]);
  all.push(['timed_belief_insert', 'INSERT ON timed_belief', BUMP_BELIEF]);
  all.push(['timed_belief_update', 'UPDATE ON timed_belief', BUMP_BELIEF]);
  all.push(['timed_belief_delete', 'DELETE ON timed_belief', BUMP]);
  return all;
}

const isSqlite = (db: Knex) => (db.client as { config: Knex.Config }).config.client === 'sqlite3';

export async function up(db: Knex): Promise<void> {
  if (!isSqlite(db)) return;
  await db.schema.createTable('store_change', (t) => {
    t.integer('id').primary();
    t.bigInteger('n').notNullable();
    t.bigInteger('newest_belief_time').notNullable();
  });
  await db.raw('INSERT INTO store_change (id, n, newest_belief_time) SELECT 1, 0, COALESCE(MAX(belief_time), 0) FROM timed_belief');
  for (const [name, event, body] of triggers()) {
    await db.raw(`CREATE TRIGGER store_change_${name} AFTER ${event} BEGIN ${body} END`);
  }
}

export async function down(db: Knex): Promise<void> {
  if (!isSqlite(db)) return;
  for (const [name] of triggers()) await db.raw(`DROP TRIGGER store_change_${name}`);
  await db.schema.dropTable('store_change');
}
