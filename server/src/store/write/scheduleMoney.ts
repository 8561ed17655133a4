import type { Knex } from 'knex';
import type { ScheduleMoney } from '../scheduleMoney.ts';

/**
 * Keeps a schedule's money series (a job run again replaces its own), numbered in the order
 * stored: of plans made at the same belief time, the last stored is in force.
 */
export async function recordScheduleMoney(trx: Knex.Transaction, m: ScheduleMoney): Promise<void> {
  await trx('schedule_money')
    .insert({
      job_id: m.jobId,
      sensor_id: m.sensorId,
      start_ms: m.startMs,
      end_ms: m.endMs,
      step_ms: m.stepMs,
      belief_time_ms: m.beliefTimeMs,
      currency: m.currency,
      fallback: m.fallback,
      stored_seq: trx.raw('(SELECT COALESCE(MAX(stored_seq), 0) + 1 FROM schedule_money)'),
      series: JSON.stringify(m.series),
    })
    .onConflict('job_id')
    .merge();
}
