import type { Knex } from 'knex';

/**
 * Accounts, users with roles and tokens, asset types, assets and sensors. Times are UTC epoch ms.
 * Ids are BIGINT so that any id a client sends (up to 2^53) compares as "not found" on
 * PostgreSQL too, instead of overflowing a 32-bit column; SQLite stores both alike.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('account', (t) => {
    t.bigIncrements('id');
    t.string('name', 100).notNullable().unique();
    t.bigInteger('consultancy_account_id').references('id').inTable('account').onDelete('SET NULL');
  });
  await db.schema.createTable('account_role', namedKind);
  await db.schema.createTable('account_account_role', (t) => {
    t.bigInteger('account_id').notNullable().references('id').inTable('account').onDelete('CASCADE');
    t.bigInteger('account_role_id').notNullable().references('id').inTable('account_role').onDelete('CASCADE');
    t.primary(['account_id', 'account_role_id']);
  });
  await db.schema.createTable('role', namedKind);
  await db.schema.createTable('user', (t) => {
    t.bigIncrements('id');
    t.string('email', 255).notNullable().unique();
    t.string('username', 255).notNullable().unique();
    t.string('password_hash', 255).notNullable();
    t.boolean('active').notNullable().defaultTo(true);
    t.string('timezone', 64).notNullable().defaultTo('Europe/Amsterdam');
    t.bigInteger('account_id').notNullable().references('id').inTable('account').onDelete('CASCADE');
    t.bigInteger('last_login_at');
    t.bigInteger('last_seen_at');
    t.index(['account_id']);
  });
  await db.schema.createTable('user_role', (t) => {
    t.bigInteger('user_id').notNullable().references('id').inTable('user').onDelete('CASCADE');
    t.bigInteger('role_id').notNullable().references('id').inTable('role').onDelete('CASCADE');
    t.primary(['user_id', 'role_id']);
  });
  // Only a hash of each token is kept, so a copy of the database does not hand out sessions.
  await db.schema.createTable('auth_token', (t) => {
    t.string('token_hash', 64).primary();
    t.bigInteger('user_id').notNullable().references('id').inTable('user').onDelete('CASCADE');
    t.bigInteger('expires_at').notNullable();
    t.index(['user_id']);
  });
  await db.schema.createTable('generic_asset_type', namedKind);
  await db.schema.createTable('generic_asset', (t) => {
    t.bigIncrements('id');
    t.string('name', 255).notNullable();
    t.double('latitude');
    t.double('longitude');
    t.bigInteger('generic_asset_type_id').notNullable().references('id').inTable('generic_asset_type');
    // NULL account: a public asset.
    t.bigInteger('account_id').references('id').inTable('account').onDelete('CASCADE');
    t.bigInteger('parent_asset_id').references('id').inTable('generic_asset').onDelete('CASCADE');
    t.text('attributes').notNullable().defaultTo('{}');
    t.index(['account_id']);
  });
  await db.schema.createTable('sensor', (t) => {
    t.bigIncrements('id');
    t.string('name', 255).notNullable();
    t.string('unit', 80).notNullable();
    t.string('timezone', 64).notNullable().defaultTo('UTC');
    t.bigInteger('event_resolution_ms').notNullable();
    t.text('attributes').notNullable().defaultTo('{}');
    t.bigInteger('generic_asset_id').notNullable().references('id').inTable('generic_asset').onDelete('CASCADE');
    t.index(['generic_asset_id']);
  });

  await db('role').insert([
    { name: 'admin', description: 'Super user' },
    { name: 'admin-reader', description: 'Can read everything' },
    { name: 'account-admin', description: 'Can post and edit sensors and assets in their account' },
    { name: 'consultant', description: 'Can read everything in consultancy client accounts' },
  ]);
  await db('account_role').insert(['Prosumer', 'MDC', 'Supplier', 'Aggregator', 'ESCO'].map((name) => ({ name })));
  await db('generic_asset_type').insert([
    { name: 'solar', description: 'solar panel(s)' },
    { name: 'wind', description: 'wind turbine' },
    { name: 'one-way_evse', description: 'uni-directional Electric Vehicle Supply Equipment' },
    { name: 'two-way_evse', description: 'bi-directional Electric Vehicle Supply Equipment' },
    { name: 'battery', description: 'stationary battery' },
    { name: 'building', description: 'building' },
    { name: 'process', description: 'process' },
    { name: 'transmission zone', description: 'A grid regulated & balanced as a whole, usually a national grid.' },
  ]);
}

/** Account roles, user roles and asset types alike: a kind looked up by its unique name, described in words. */
function namedKind(t: Knex.CreateTableBuilder): void {
  t.bigIncrements('id');
  t.string('name', 80).notNullable().unique();
  t.string('description', 255);
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    'sensor',
    'generic_asset',
    'generic_asset_type',
    'auth_token',
    'user_role',
    'user',
    'role',
    'account_account_role',
    'account_role',
    'account',
  ]) {
    await db.schema.dropTable(table);
  }
}
