import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.ts';
import { weekdays, type Weekday } from '../contracts/devices.ts';

/** A device's recurring state-of-charge target, as stored. */
export interface RecurringSocTarget {
  id: number;
  assetId: number;
  days: Weekday[];
  /** Local time of day, "HH:mm", read in `timezone`. */
  time: string;
  timezone: string;
  /** A share of the capacity ("80%") or an energy ("40 kWh"), as written. */
  value: string;
}

interface DbRow {
  id: number;
  asset_id: number;
  days: string;
  time: string;
  timezone: string;
  value: string;
}

// Days are kept as ISO weekday numbers (Monday 1), which is what luxon's `weekday` answers.
const fromRow = (r: DbRow): RecurringSocTarget => ({
  id: Number(r.id),
  assetId: Number(r.asset_id),
  days: r.days.split(',').map((d) => weekdays[Number(d) - 1]),
  time: r.time,
  timezone: r.timezone,
  value: r.value,
});

/** @returns the asset's recurring targets, in the order written. */
export async function listRecurringSocTargets(db: Knex, assetId: number): Promise<RecurringSocTarget[]> {
  // Every automation run reads them (every minute for some): one kept statement, without the query builder.
  const rows = await dialectOf(db).query<DbRow>(db, 'SELECT * FROM recurring_soc_target WHERE asset_id = ? ORDER BY id', [assetId]);
  return rows.map(fromRow);
}
