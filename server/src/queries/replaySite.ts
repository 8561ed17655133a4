import type { Knex } from 'knex';
import type { Asset } from '../store/assets.ts';
import { getAsset, getAssetType } from '../store/assets.ts';
import type { Sensor } from '../store/sensors.ts';
import { siteSensors } from './assetKpis.ts';
import { signConvention } from './loadSign.ts';

/**
 * What a battery replay of a site reads: its house load and its PV, each the first measured power
 * sensor of a device set up as such; without a house load, its grid meter, whose power is the net
 * load already (PV then null). Null when the site measures none of them.
 */
export async function replaySensors(db: Knex, assetId: number): Promise<{ load: Sensor; pv: Sensor | null } | null> {
  const { sensors } = await siteSensors(db, assetId);
  const byType = new Map<string, Sensor>();
  for (const sensor of sensors) {
    if (signConvention(sensor) === null || sensor.event_resolution_ms <= 0) continue;
    const asset = await getAsset(db, sensor.generic_asset_id);
    const type = asset && (await getAssetType(db, asset.generic_asset_type_id))?.name;
    if (type && !byType.has(type)) byType.set(type, sensor);
  }
  const load = byType.get('house load');
  if (load) return { load, pv: byType.get('solar') ?? null };
  const grid = byType.get('grid meter');
  return grid ? { load: grid, pv: null } : null;
}

/** Where the site is and its country, for the forecaster's calendar and sun: the site's, else its nearest ancestor's. */
export async function replayPlace(db: Knex, asset: Asset) {
  let at: Asset | undefined = asset;
  while (at && (at.latitude === null || at.longitude === null) && at.parent_asset_id !== null) at = await getAsset(db, at.parent_asset_id);
  const country = asset.attributes.country;
  return {
    location: at && at.latitude !== null && at.longitude !== null ? { latitude: at.latitude, longitude: at.longitude } : null,
    country: typeof country === 'string' ? country : null,
  };
}
