import type { Knex } from 'knex';
import { lastMeasurements, monitoredSensors, type LastMeasurement, type MonitoredSensor } from '../store/lastMeasurements.ts';
import { readCount, standsSince, type Count } from '../store/storeChange.ts';

/** What the stale-sensor check reads: the monitored sensors, and the last measurements it asked for. */
export interface StaleInputs {
  sensors: MonitoredSensor[];
  /** By sensor id; a sensor asked for but never measured by then has none. */
  lasts: ReadonlyMap<number, LastMeasurement | undefined>;
}

/** A full read, and the count read before it. */
interface Kept extends StaleInputs {
  count: Count;
  /** The time the sensors and last measurements were read at. */
  atMs: number;
  lasts: Map<number, LastMeasurement | undefined>;
}

/**
 * The stale-sensor check's reads, kept while the store's count of writes (migration 0027) stands:
 * a check every minute otherwise reads the sensors and their last measurements 1,440 times a day,
 * nearly always to find them as they were. The count is read first; a check that finds it where
 * it was before the last full read, with no belief dated after that read's time, takes what that
 * read found. That is what a read now would find, also after another process (the CLI, another
 * server) wrote: every write raises the count. And no later time can turn a belief into a last
 * measurement: a measurement is believed at or after its event's start, and the read asks for
 * events started by the time it reads at, so one that a read now would find and that read did not
 * is dated after it. A store that keeps no count (PostgreSQL) is read at every check.
 */
export class StaleReads {
  private kept: Kept | undefined;

  /**
   * @param wanted whether the check needs a sensor's last measurement (it knows the others fresh).
   */
  async read(db: Knex, nowMs: number, wanted: (sensorId: number) => boolean): Promise<StaleInputs> {
    const count = await readCount(db);
    const kept = this.kept;
    // A check at an earlier time than the read (tests choose times) reads again.
    if (count && kept && kept.atMs <= nowMs && standsSince(count, kept.count, kept.atMs)) {
      // Sensors known fresh at the full read were not read then: those now wanted are read now,
      // which finds what a read at the full read's time would have (see above).
      const unread = kept.sensors.filter((s) => wanted(s.id) && !kept.lasts.has(s.id));
      await readLasts(db, kept.lasts, nowMs, unread);
      return kept;
    }
    const sensors = await monitoredSensors(db);
    const lasts = new Map<number, LastMeasurement | undefined>();
    const asked = sensors.filter((s) => wanted(s.id));
    await readLasts(db, lasts, nowMs, asked);
    this.kept = count && { count, atMs: nowMs, sensors, lasts };
    return { sensors, lasts };
  }
}

/** Adds the last measurements by `nowMs` of `sensors` to `lasts` (none for a sensor never measured). */
async function readLasts(db: Knex, lasts: Map<number, LastMeasurement | undefined>, nowMs: number, sensors: MonitoredSensor[]) {
  const ids = sensors.map((s) => s.id);
  const found = await lastMeasurements(db, ids, nowMs);
  for (const id of ids) lasts.set(id, found.get(id));
}
