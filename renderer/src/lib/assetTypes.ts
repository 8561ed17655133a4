import type { AssetType } from '../api/types.ts';

/**
 * Asset types for people: the stored names are FlexMeasures' ids ("one-way_evse"), which stay on
 * the wire; every page shows them through this one map.
 */
const labels: Record<string, string> = {
  site: 'Site',
  building: 'Building',
  battery: 'Battery',
  'one-way_evse': 'EV charger, one-way',
  'two-way_evse': 'EV charger, two-way',
  solar: 'Solar panels',
  wind: 'Wind turbine',
  process: 'Heat pump or process',
  'house load': 'House load',
  'grid meter': 'Grid meter',
  'transmission zone': 'Transmission zone',
};

/** @returns the type's label; a type made elsewhere by its name, underscores as spaces, capitalised. */
export function typeLabel(name: string): string {
  const known = labels[name];
  if (known) return known;
  const spaced = name.replace(/_/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** @returns the label of the type with this id among `types`, or an empty text while they load. */
export const typeLabelOf = (types: readonly AssetType[] | undefined, id: number): string => {
  const type = types?.find((t) => t.id === id);
  return type ? typeLabel(type.name) : '';
};

/** Whether the type is a car charger, whose page offers charging targets. */
export const isCharger = (name: string) => name.endsWith('_evse');
