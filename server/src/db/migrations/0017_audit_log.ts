import type { Knex } from 'knex';

/**
 * FlexMeasures 1.0's audit logs in one table: what was done to an account, a user or an asset (and
 * its data), by whom. The ids carry no foreign keys, as in 1.0, so that an entry outlives what it
 * names: a deleted asset's or user's history stays with its account.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('audit_log', (t) => {
    t.bigIncrements('id');
    t.bigInteger('event_datetime').notNullable();
    t.string('event', 500).notNullable();
    t.bigInteger('active_user_id');
    t.string('active_user_name', 255);
    t.bigInteger('affected_user_id');
    t.bigInteger('affected_account_id');
    t.bigInteger('affected_asset_id');
    t.index(['affected_user_id']);
    t.index(['affected_account_id']);
    t.index(['affected_asset_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('audit_log');
}
