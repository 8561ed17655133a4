import type { Knex } from 'knex';

/** A device's state-of-charge event (legacy API) and the scheduling job it triggered. */
export interface UdiEvent {
  sensorId: number;
  eventId: number;
  eventType: string;
  jobId: string;
}

interface DbUdiEvent {
  sensor_id: number;
  event_id: number;
  event_type: string;
  job_id: string;
}

/** @returns the UDI event of a device by its event id, or undefined. */
export async function getUdiEvent(db: Knex, sensorId: number, eventId: number): Promise<UdiEvent | undefined> {
  const row = await db<DbUdiEvent>('udi_event').where({ sensor_id: sensorId, event_id: eventId }).first();
  return (
    row && {
      sensorId: row.sensor_id,
      eventId: Number(row.event_id),
      eventType: row.event_type,
      jobId: row.job_id,
    }
  );
}
