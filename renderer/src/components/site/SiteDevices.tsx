import { Link } from 'react-router';
import type { Asset, AssetType } from '../../api/types.ts';
import { typeLabelOf } from '../../lib/assetTypes.ts';
import { parseAttributes } from '../../lib/attributes.ts';
import { LinkTable } from '../DataTable.tsx';
import { storedFlexModel, type SiteDevice } from './useSiteDevices.ts';

/** The sensor ids a flex-context entry names: a list of ids, of `{sensor}` references, or one reference. */
function namedSensors(value: unknown): number[] {
  const one = (v: unknown) => (typeof v === 'number' ? [v] : v && typeof v === 'object' && 'sensor' in v ? [Number(v.sensor)] : []);
  return Array.isArray(value) ? value.flatMap(one) : one(value);
}

/**
 * How the site's schedules use a device, read from what is stored: its own flex-model makes it
 * scheduled; the site's flex-context names inflexible devices and the sensor of the site's power.
 */
export function deviceRole(device: SiteDevice, siteContext: Record<string, unknown>): string {
  if (Object.keys(storedFlexModel(device.asset)).length) return 'Scheduled';
  const ids = new Set(device.sensors.map((s) => s.id));
  const names = (key: string) => namedSensors(siteContext[key]).some((id) => ids.has(id));
  if (names('aggregate-power')) return 'Site power at the grid connection';
  if (names('inflexible-production')) return 'Planned around (production)';
  if (names('inflexible-consumption')) return 'Planned around (consumption)';
  // FlexMeasures 0.18's list reads each sensor's sign: consumption where it says so, production otherwise.
  const listed = device.sensors.find((s) => namedSensors(siteContext['inflexible-device-sensors']).includes(s.id));
  if (listed)
    return `Planned around (${parseAttributes(listed.attributes).consumption_is_positive === true ? 'consumption' : 'production'})`;
  return 'Not in the site’s schedules';
}

/** The site's devices: each links to its page, says its type, its sensors and its part in the site's schedules. */
export function SiteDevices({ site, devices, types }: { site: Asset; devices: SiteDevice[]; types: AssetType[] | undefined }) {
  const context = parseAttributes(site.flex_context);
  return (
    <LinkTable
      label="Devices"
      columns={['Device', 'Sensors', 'In the site’s schedules']}
      rows={devices}
      empty="No devices yet: add one with Add device."
      link={(d) => ({ to: `/assets/${d.asset.id}`, text: d.asset.name })}
      cells={(d) => (
        <>
          <td>
            <span className="muted">{typeLabelOf(types, d.asset.generic_asset_type_id)}</span>
            <ul className="plain">
              {d.sensors.map((s) => (
                <li key={s.id}>
                  <Link to={`/sensors/${s.id}`}>{s.name}</Link> <span className="muted">{s.unit}</span>
                </li>
              ))}
            </ul>
          </td>
          <td>{deviceRole(d, context)}</td>
        </>
      )}
    />
  );
}
