import type { Knex } from 'knex';

/**
 * A sensor named for people: its device's (asset's) name before its own, "Home battery power",
 * since several devices each have a "power"; a sensor whose name already says its device keeps it.
 */
export function deviceSensorName(assetName: string, sensorName: string): string {
  return sensorName.toLowerCase().includes(assetName.toLowerCase()) ? sensorName : `${assetName} ${sensorName}`;
}

/** What a notification or message says of a sensor: its name for people, its zone, its device. */
export interface SensorNaming {
  name: string;
  timezone: string;
  assetId: number;
}

/** @returns the naming of each of these sensors that exists. */
export async function sensorNamings(db: Knex, ids: readonly number[]): Promise<Map<number, SensorNaming>> {
  if (!ids.length) return new Map();
  const rows = await db('sensor as s')
    .join('generic_asset as a', 'a.id', 's.generic_asset_id')
    .whereIn('s.id', [...new Set(ids)])
    .select<{ id: number; name: string; tz: string; asset_id: number; asset: string }[]>(
      's.id',
      's.name',
      's.timezone as tz',
      'a.id as asset_id',
      'a.name as asset',
    );
  return new Map(rows.map((r) => [Number(r.id), { name: deviceSensorName(r.asset, r.name), timezone: r.tz, assetId: Number(r.asset_id) }]));
}
