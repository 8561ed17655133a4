import type { Knex } from 'knex';
import type { UdiEvent } from '../udiEvents.ts';

/** Records a UDI event of a device; an event id is recorded once. */
export async function recordUdiEvent(db: Knex | Knex.Transaction, event: UdiEvent): Promise<void> {
  await db('udi_event').insert({
    sensor_id: event.sensorId,
    event_id: event.eventId,
    event_type: event.eventType,
    job_id: event.jobId,
    created_at: Date.now(),
  });
}
