import type { Knex } from 'knex';
import { readQuantity } from '../domain/units.ts';
import { getAsset, getAssetType } from '../store/assets.ts';
import type { Sensor } from '../store/sensors.ts';
import { signConvention } from './loadSign.ts';

/** A device's role on the site, by the type its set-up gave its asset. */
export type Role = 'grid' | 'pv' | 'battery' | 'ev' | 'load';
const ROLES: Record<string, Role> = {
  'grid meter': 'grid',
  solar: 'pv',
  battery: 'battery',
  'one-way_evse': 'ev',
  'two-way_evse': 'ev',
  'house load': 'load',
};
/** Every role, once. */
export const ROLE_NAMES = [...new Set(Object.values(ROLES))];

/** A device's measured power sensor, its role and, for batteries, the capacity in kWh. */
export interface RoleSensor {
  sensor: Sensor;
  role: Role;
  capacityKwh: number | null;
}

/** The site's measured power sensors with their role. */
export async function roleSensors(db: Knex, sensors: Sensor[]): Promise<RoleSensor[]> {
  const out: RoleSensor[] = [];
  for (const sensor of sensors) {
    if (signConvention(sensor) === null || sensor.event_resolution_ms <= 0) continue;
    const asset = (await getAsset(db, sensor.generic_asset_id))!;
    const role = ROLES[(await getAssetType(db, asset.generic_asset_type_id))?.name ?? ''];
    if (!role) continue;
    const capacity = asset.flex_model['soc-max'];
    const mwh = role === 'battery' && capacity !== undefined ? readQuantity(capacity as string, 'MWh', 'kWh') : null;
    out.push({ sensor, role, capacityKwh: typeof mwh === 'number' ? mwh * 1000 : null });
  }
  return out;
}

/** The site's grid meters' power sensors among its devices: its measured net grid flow. */
export const gridMeters = (devices: RoleSensor[]): number[] => devices.filter((d) => d.role === 'grid').map((d) => d.sensor.id);
