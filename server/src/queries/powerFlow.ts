import type { Sensor } from '../store/sensors.ts';
import { signConvention } from './loadSign.ts';

/** The parts of a site's power flow, named for what each device is to the site. */
export type FlowRole = 'grid' | 'pv' | 'battery' | 'soc' | 'house' | 'car';

/** kW per unit of the power units sensors are stored in. */
const KW: Record<string, number> = { W: 0.001, kW: 1, MW: 1000, GW: 1_000_000 };

/** A sensor's latest measurement, as siteNow read it. */
export interface FlowInput {
  sensor: Pick<Sensor, 'id' | 'unit' | 'attributes'>;
  /** The asset type's name of the sensor's asset, and whether that asset is the site itself. */
  assetType: string;
  isSite: boolean;
  latest: { value: number; endMs: number } | null;
  stale: boolean;
}

/**
 * A sensor's part in the flow, read from its device's type: a power sensor of a grid meter, PV,
 * battery, EV charger or house load, and a battery's state of charge in %. A power sensor on the
 * site itself is taken as the grid connection only when it is the site's one power sensor and the
 * site has no grid meter (several could be anything: PV, a sub-meter).
 */
function roleOf(input: FlowInput, siteIsGrid: boolean): FlowRole | null {
  const { unit } = input.sensor;
  if (input.assetType === 'battery' && unit === '%') return 'soc';
  if (!(unit in KW)) return null;
  if (input.isSite) return siteIsGrid ? 'grid' : null;
  if (input.assetType === 'grid meter') return 'grid';
  if (input.assetType === 'solar') return 'pv';
  if (input.assetType === 'battery') return 'battery';
  if (input.assetType === 'house load') return 'house';
  if (input.assetType.endsWith('_evse')) return 'car';
  return null;
}

/**
 * A sensor's latest power in kW, consumption positive (into the device from the site): stored
 * values are turned around when the sensor says production is positive (FlexMeasures' default).
 */
const consumptionKw = (input: FlowInput, value: number) =>
  (signConvention(input.sensor) === 'consumption positive' ? 1 : -1) * value * KW[input.sensor.unit];

const ORDER: FlowRole[] = ['grid', 'pv', 'battery', 'soc', 'house', 'car'];

/**
 * The site's power flow from its devices' latest measurements. Each role's value sums its
 * sensors (two PV inverters are one PV flow), in the role's own direction: grid positive is
 * import, PV positive is production, battery positive is charging, house and car positive is
 * consumption; SoC in %. A role is stale when any of its sensors is stale or never measured: its
 * value is then the last known, not now, and `since` (the end of its oldest latest measurement)
 * says from when data is missing.
 */
export function powerFlow(inputs: FlowInput[]) {
  const isPower = (i: FlowInput) => i.sensor.unit in KW;
  const siteIsGrid =
    !inputs.some((i) => i.assetType === 'grid meter' && isPower(i)) && inputs.filter((i) => i.isSite && isPower(i)).length === 1;
  const byRole = new Map<FlowRole, FlowInput[]>();
  for (const input of inputs) {
    const role = roleOf(input, siteIsGrid);
    if (role) byRole.set(role, [...(byRole.get(role) ?? []), input]);
  }
  return ORDER.filter((role) => byRole.has(role)).map((role) => {
    const parts = byRole.get(role)!;
    const measured = parts.filter((p) => p.latest);
    const sum = measured.reduce((acc, p) => acc + (role === 'soc' ? p.latest!.value : consumptionKw(p, p.latest!.value)), 0);
    // SoC of several batteries is their mean; PV is shown as what it produces.
    const value = !measured.length ? null : role === 'soc' ? sum / measured.length : role === 'pv' ? -sum : sum;
    const ends = measured.map((p) => p.latest!.endMs);
    return {
      role,
      unit: role === 'soc' ? '%' : 'kW',
      value: value === null ? null : Math.round(value * 1000) / 1000,
      stale: parts.some((p) => p.stale) || measured.length < parts.length,
      since: ends.length ? new Date(Math.min(...ends)).toISOString() : null,
      sensor_ids: parts.map((p) => p.sensor.id),
    };
  });
}
