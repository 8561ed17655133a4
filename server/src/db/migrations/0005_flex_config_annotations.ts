import type { Knex } from 'knex';

/**
 * FlexMeasures 1.0 dialect: assets store a flex-context and a flex-model (JSON text, as
 * `attributes`), and accounts, assets and sensors carry annotations. An annotation is linked to
 * one of them; the same text over the same period from the same source is one annotation.
 * The flex configuration has a table of its own: adding columns to `generic_asset` would make the
 * way down rebuild that table on SQLite, which cascades into sensors and beliefs.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('generic_asset_flex', (t) => {
    t.bigInteger('asset_id').primary().references('id').inTable('generic_asset').onDelete('CASCADE');
    t.text('flex_context').notNullable().defaultTo('{}');
    t.text('flex_model').notNullable().defaultTo('{}');
  });
  await db.schema.createTable('annotation', (t) => {
    t.bigIncrements('id');
    t.string('content', 1024).notNullable();
    t.bigInteger('start_ms').notNullable();
    t.bigInteger('end_ms').notNullable();
    t.string('type', 20).notNullable();
    t.bigInteger('belief_time_ms').notNullable();
    t.bigInteger('source_id').notNullable().references('id').inTable('data_source').onDelete('CASCADE');
    t.bigInteger('account_id').references('id').inTable('account').onDelete('CASCADE');
    t.bigInteger('asset_id').references('id').inTable('generic_asset').onDelete('CASCADE');
    t.bigInteger('sensor_id').references('id').inTable('sensor').onDelete('CASCADE');
    t.index(['account_id']);
    t.index(['asset_id']);
    t.index(['sensor_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('annotation');
  await db.schema.dropTable('generic_asset_flex');
}
