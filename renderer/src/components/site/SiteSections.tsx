import type { Asset, AssetType } from '../../api/types.ts';
import { EnergyPeriods } from './EnergyPeriods.tsx';
import { PowerFlow } from './PowerFlow.tsx';
import { SiteDevices } from './SiteDevices.tsx';
import type { SiteDevice } from './useSiteDevices.ts';

/** What only a site's page shows: its power flow now, its energy and money per period, and its devices. */
export function SiteSections({
  site,
  zone,
  devices,
  types,
}: {
  site: Asset;
  zone: string;
  devices: SiteDevice[];
  types: AssetType[] | undefined;
}) {
  return (
    <>
      <section className="card" aria-labelledby="flow-title">
        <h2 id="flow-title">Power flow now</h2>
        <PowerFlow assetId={site.id} zone={zone} name={site.name} />
      </section>
      <section className="card" aria-labelledby="periods-title">
        <h2 id="periods-title">Energy and money per period</h2>
        <EnergyPeriods assetId={site.id} />
      </section>
      <section className="card" aria-labelledby="devices-title">
        <h2 id="devices-title">Devices</h2>
        <SiteDevices site={site} devices={devices} types={types} />
      </section>
    </>
  );
}
