import type { Knex } from 'knex';

/** Scheduling jobs, persisted so that a restart resumes queued work and answers for finished jobs. */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('job', (t) => {
    t.string('id', 36).primary();
    t.string('queue', 40).notNullable();
    // queued → started → finished | failed
    t.string('status', 16).notNullable();
    t.text('args').notNullable();
    // Identical triggers within the cache TTL share one job; the key hashes the arguments.
    t.string('cache_key', 64).notNullable();
    t.bigInteger('account_id').references('id').inTable('account').onDelete('CASCADE');
    t.bigInteger('sensor_id').references('id').inTable('sensor').onDelete('CASCADE');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('started_at');
    t.bigInteger('finished_at');
    t.integer('attempts').notNullable().defaultTo(0);
    t.text('result');
    t.text('error');
    t.string('fallback_job_id', 36);
    t.index(['status', 'created_at']);
    t.index(['cache_key', 'created_at']);
    t.index(['account_id', 'created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('job');
}
