import type { Knex } from 'knex';

/** A target as the user wrote it: four required text columns, each with its longest length, in this order. */
const asWritten = {
  // ISO weekdays, comma-separated ("1,2,3,4,5"), the local time ("07:00") and the zone it is read in.
  days: 13,
  time: 5,
  timezone: 64,
  // A percentage of the device's capacity ("80%") or an energy ("40 kWh").
  value: 100,
};

/**
 * Recurring state-of-charge targets of a device ("80 % by 07:00 on weekdays"): each automation run
 * that schedules the device turns the occurrences within its horizon into flex-model soc-targets.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('recurring_soc_target', (t) => {
    t.bigIncrements('id');
    t.bigInteger('asset_id').notNullable().references('id').inTable('generic_asset').onDelete('CASCADE');
    for (const [name, length] of Object.entries(asWritten)) t.string(name, length).notNullable();
    t.index(['asset_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('recurring_soc_target');
}
