import { Link } from 'react-router';
import type { DeviceSetupAnswer } from '../../../../server/src/contracts/devices.ts';
import { typeLabel } from '../../lib/assetTypes.ts';
import { describeDays } from '../../lib/deviceSetup.ts';
import { SensorTable } from '../SensorTable.tsx';

/** A flex-model value for people: a sensor reference by its number, quantities as stored ("5 kW"). */
const shown = (value: unknown) =>
  value && typeof value === 'object' && 'sensor' in value ? `sensor #${String((value as { sensor: unknown }).sensor)}` : String(value);

/** What a device set-up made: the asset, its sensors with units and zone, its flex-model and targets. */
export function DeviceMade({ made }: { made: DeviceSetupAnswer }) {
  const model = Object.entries(made.flex_model);
  return (
    <section className="card" aria-label="Device made">
      <h2>Made</h2>
      <p role="status">
        <Link to={`/assets/${made.asset.id}`}>{made.asset.name}</Link> ({typeLabel(made.asset.generic_asset_type)}) is set up.
      </p>
      <SensorTable label="Sensors made" sensors={made.sensors} columns={['Unit', 'Time zone', 'Resolution']} />
      {model.length > 0 && (
        <>
          <h3>Stored flex-model</h3>
          <dl aria-label="Stored flex-model" className="kv">
            {model.map(([key, value]) => (
              <div key={key}>
                <dt>{key}</dt>
                <dd>{shown(value)}</dd>
              </div>
            ))}
          </dl>
        </>
      )}
      {made.site_flex_context && (
        <p>
          {made.asset.generic_asset_type === 'grid meter'
            ? 'The site’s schedules write the site’s planned power to it.'
            : 'The site’s schedules count its power as an inflexible device.'}
        </p>
      )}
      {made.soc_targets.length > 0 && (
        <>
          <h3>Charging targets</h3>
          <ul aria-label="Charging targets">
            {made.soc_targets.map((t) => (
              <li key={t.id}>
                {t.value} by {t.time} on {describeDays(t.days)} ({t.timezone})
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
