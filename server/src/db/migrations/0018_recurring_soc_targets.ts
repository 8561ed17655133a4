import type { Knex } from 'knex';

/**
 * Recurring state-of-charge targets of a device ("80 % by 07:00 on weekdays"): each automation run
 * that schedules the device turns the occurrences within its horizon into flex-model soc-targets.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('recurring_soc_target', (t) => {
    t.bigIncrements('id');
    t.bigInteger('asset_id').notNullable().references('id').inTable('generic_asset').onDelete('CASCADE');
    // ISO weekdays, comma-separated ("1,2,3,4,5"), the local time ("07:00") and the zone it is read in.
    t.string('days', 13).notNullable();
    t.string('time', 5).notNullable();
    t.string('timezone', 64).notNullable();
    // As written: a percentage of the device's capacity ("80%") or an energy ("40 kWh").
    t.string('value', 100).notNullable();
    t.index(['asset_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('recurring_soc_target');
}
