import type { Knex } from 'knex';

/**
 * Data sources and the belief store. See docs/belief-store.md for why the table looks like this.
 * Times are UTC epoch milliseconds.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('data_source', (t) => {
    t.bigIncrements('id');
    t.string('name', 255).notNullable();
    // user, scheduler, forecaster, reporter, demo script, CLI script
    t.string('type', 80).notNullable();
    t.string('model', 80);
    t.string('version', 40);
    // A user's source outlives the user (its data stays attributable to the account).
    t.bigInteger('user_id').references('id').inTable('user').onDelete('SET NULL');
    t.bigInteger('account_id').references('id').inTable('account').onDelete('SET NULL');
    t.index(['name']);
    t.index(['user_id']);
    t.index(['account_id']);
  });

  const beliefs = db.schema.createTable('timed_belief', (t) => {
    t.bigInteger('sensor_id').notNullable().references('id').inTable('sensor').onDelete('CASCADE');
    t.bigInteger('event_start').notNullable();
    // Sources are never deleted while they have data.
    t.bigInteger('source_id').notNullable().references('id').inTable('data_source');
    t.double('cumulative_probability').notNullable();
    t.bigInteger('belief_time').notNullable();
    t.double('event_value').notNullable();
    // Every query of the store names one sensor and a range of event starts; this key order
    // makes that a contiguous range, with each event's beliefs ordered by source and time.
    t.primary(['sensor_id', 'event_start', 'source_id', 'cumulative_probability', 'belief_time']);
  });
  if ((db.client as { config: Knex.Config }).config.client === 'sqlite3') {
    // WITHOUT ROWID stores the rows in the primary-key b-tree itself: a window read touches only
    // the pages of that window, and no second b-tree (rowid table + key index) is written.
    const [create, ...rest] = beliefs.toSQL();
    await db.raw(`${create.sql} WITHOUT ROWID`, create.bindings);
    for (const statement of rest) await db.raw(statement.sql, statement.bindings);
  } else {
    // PostgreSQL: the primary key's b-tree (sensor, event start, …) serves every window read as one range.
    await beliefs;
  }

  // Which sources have data on which sensor, kept up to date on every write, so that
  // `GET /sources?sensor_id=` does not scan a sensor's beliefs.
  await db.schema.createTable('sensor_source', (t) => {
    t.bigInteger('sensor_id').notNullable().references('id').inTable('sensor').onDelete('CASCADE');
    t.bigInteger('source_id').notNullable().references('id').inTable('data_source').onDelete('CASCADE');
    t.primary(['sensor_id', 'source_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['sensor_source', 'timed_belief', 'data_source']) await db.schema.dropTable(table);
}
