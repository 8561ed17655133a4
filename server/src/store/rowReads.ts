import type { Knex } from 'knex';
import { getAsset, type Asset } from './assets.ts';
import { getSensor, getSensors, type SensorInContext } from './sensors.ts';

/**
 * Sensor and asset rows as one piece of work reads them (one trigger's or one automation run's
 * resolution): each read once, however many of its steps need it. Made for that piece of work and
 * dropped with it, never kept longer: other processes (the CLI on the same SQLite file, other
 * servers on PostgreSQL) write the same rows, and only a read within one piece of work may stand
 * for another, as its reads one by one at slightly different moments did.
 */
export class RowReads {
  private readonly sensorRows = new Map<number, Promise<SensorInContext | undefined>>();
  private readonly assetRows = new Map<number, Promise<Asset | undefined>>();

  constructor(readonly db: Knex) {}

  /** @returns the sensor with its asset's account and type (as `getSensor`), or undefined. */
  sensor(id: number): Promise<SensorInContext | undefined> {
    let row = this.sensorRows.get(id);
    if (!row) this.sensorRows.set(id, (row = getSensor(this.db, id)));
    return row;
  }

  /** Sensors as `getSensors` reads them, those not read yet in one statement. */
  async sensors(ids: readonly number[]): Promise<Map<number, SensorInContext>> {
    const unread = [...new Set(ids)].filter((id) => !this.sensorRows.has(id));
    if (unread.length) {
      const read = getSensors(this.db, unread);
      for (const id of unread) {
        const row = read.then((found) => found.get(id));
        // A failed read rejects for whoever awaits the id; not also as unhandled for those none awaits.
        row.catch(() => undefined);
        this.sensorRows.set(id, row);
      }
    }
    const found = new Map<number, SensorInContext>();
    for (const id of ids) {
      const s = await this.sensor(id);
      if (s) found.set(id, s);
    }
    return found;
  }

  /** @returns the asset with its flex configuration (as `getAsset`), or undefined. */
  asset(id: number): Promise<Asset | undefined> {
    let row = this.assetRows.get(id);
    if (!row) this.assetRows.set(id, (row = getAsset(this.db, id)));
    return row;
  }

  /** Rows the piece of work has read itself (its path sensor, say): not read again. */
  know(row: { sensor?: SensorInContext; asset?: Asset }): this {
    if (row.sensor) this.sensorRows.set(row.sensor.id, Promise.resolve(row.sensor));
    if (row.asset) this.assetRows.set(row.asset.id, Promise.resolve(row.asset));
    return this;
  }
}
