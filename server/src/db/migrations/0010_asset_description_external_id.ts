import type { Knex } from 'knex';

/**
 * FlexMeasures 1.0's asset `description` and `external_id` (the asset's id in another system,
 * unique within its account, as 1.0's database makes it). Plain SQL, which both SQLite and
 * PostgreSQL run as is: SQLite then edits the table in place, so that going down restores the
 * table exactly (knex would rebuild it).
 */
export async function up(db: Knex): Promise<void> {
  await db.raw('ALTER TABLE generic_asset ADD COLUMN description text');
  await db.raw('ALTER TABLE generic_asset ADD COLUMN external_id varchar(80)');
  await db.raw('CREATE UNIQUE INDEX generic_asset_account_id_external_id_key ON generic_asset (account_id, external_id)');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX generic_asset_account_id_external_id_key');
  await db.raw('ALTER TABLE generic_asset DROP COLUMN external_id');
  await db.raw('ALTER TABLE generic_asset DROP COLUMN description');
}
