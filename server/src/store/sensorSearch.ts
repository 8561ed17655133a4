import type { Knex } from 'knex';
import type { SensorInContext } from './sensors.ts';

/** A sensor with the location of its asset. */
export interface PlacedSensor extends SensorInContext {
  latitude: number | null;
  longitude: number | null;
}

/** How names compare in a search: case and spaces versus underscores do not matter. */
export const searchName = (name: string) => name.trim().toLowerCase().replace(/ /g, '_');

/**
 * Finds sensors by name, for clients that name sensors instead of giving their ids.
 * @param db the store.
 * @param filter the names (compared as `searchName` does) and the owners: account ids, with
 *   `null` for public assets; `all` for every owner.
 * @returns the matching sensors with their asset's account, type and location, newest first.
 */
export async function findSensorsByName(db: Knex, filter: { names: string[]; owners: (number | null)[] | 'all' }): Promise<PlacedSensor[]> {
  if (!filter.names.length) return [];
  const q = db('sensor as s')
    .join('generic_asset as a', 'a.id', 's.generic_asset_id')
    .join('generic_asset_type as t', 't.id', 'a.generic_asset_type_id')
    .whereRaw(`lower(replace(trim(s.name), ' ', '_')) in (${filter.names.map(() => '?').join(', ')})`, filter.names.map(searchName))
    .orderBy('s.id', 'desc')
    .select<(Omit<PlacedSensor, 'attributes'> & { attributes: string })[]>(
      's.*',
      'a.account_id',
      't.name as asset_type',
      'a.latitude',
      'a.longitude',
    );
  const { owners } = filter;
  if (owners !== 'all') {
    const accounts = owners.filter((o): o is number => o !== null);
    q.where((w) => {
      w.whereIn('a.account_id', accounts);
      if (owners.includes(null)) w.orWhereNull('a.account_id');
    });
  }
  return (await q).map((r) => ({
    ...r,
    event_resolution_ms: Number(r.event_resolution_ms),
    attributes: JSON.parse(r.attributes) as Record<string, unknown>,
  }));
}
