import type { Knex } from 'knex';

/**
 * A "site" asset type: the grid connection with the devices behind it (batteries, chargers,
 * panels, the house load), which the device set-up puts below it. FlexMeasures ships no such
 * type; sites were "building" here before, and keep that type.
 */
export async function up(db: Knex): Promise<void> {
  const existing = await db('generic_asset_type').where({ name: 'site' }).first();
  if (!existing)
    await db('generic_asset_type').insert({ name: 'site', description: 'a site: a grid connection and the devices behind it' });
}

export async function down(db: Knex): Promise<void> {
  const type = await db('generic_asset_type').where({ name: 'site' }).first();
  if (type && !(await db('generic_asset').where({ generic_asset_type_id: type.id }).first())) {
    await db('generic_asset_type').where({ id: type.id }).delete();
  }
}
