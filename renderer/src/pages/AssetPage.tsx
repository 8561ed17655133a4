import { Link, useParams } from 'react-router';
import { API } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { AssetChart } from '../components/asset/AssetChart.tsx';
import { AssetProperties } from '../components/asset/AssetProperties.tsx';
import { AutomationsPanel } from '../components/asset/AutomationsPanel.tsx';
import { SensorList } from '../components/asset/SensorList.tsx';
import { DeviceLinks } from '../components/device/DeviceLinks.tsx';
import { RecurringTargets } from '../components/device/RecurringTargets.tsx';
import { StoredFlexConfig } from '../components/asset/StoredFlexConfig.tsx';
import { SchedulePanel, SkipToCompute } from '../components/schedule/SchedulePanel.tsx';
import { isPower } from '../components/schedule/useScheduleForm.ts';
import { SiteSections } from '../components/site/SiteSections.tsx';
import { SiteSchedulePanel } from '../components/site/SiteSchedulePanel.tsx';
import { useSiteDevices } from '../components/site/useSiteDevices.ts';
import { isCharger, typeLabel } from '../lib/assetTypes.ts';
import { ErrorNotice, Loading } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import * as wire from '../api/contracts.ts';

/**
 * One asset: properties, sensors, chart, stored flex config, automations and the Schedule panel;
 * a site also lists its devices and schedules them together, a device links up to its site.
 */
export function AssetPage() {
  const { id } = useParams();
  const session = useSession();
  const asset = useApi(`${API}/assets/${id}`, undefined, wire.assetAnswer);
  const sensors = useApi(`${API}/sensors`, { asset_id: id }, wire.sensorList);
  const types = useApi(`${API}/assets/types`, undefined, wire.assetTypeList);
  const devices = useSiteDevices(Number(id));
  const parentId = asset.data?.parent_asset_id;
  const parent = useApi(parentId ? `${API}/assets/${parentId}` : null, undefined, wire.assetAnswer);

  if (asset.error) return <ErrorNotice error={asset.error} />;
  if (!asset.data || !sensors.data || (!devices.data && !devices.error)) return <Loading what="Loading the asset" />;
  const a = asset.data;
  const list = sensors.data;
  const below = devices.data ?? [];
  // The site's time zone: that of its sensors, or its devices' (assets have none of their own).
  const zone = list[0]?.timezone ?? below.find((d) => d.sensors.length)?.sensors[0].timezone ?? session.user.timezone;
  const member = session.isMemberOf(a.account_id);
  const typeName = types.data?.find((t) => t.id === a.generic_asset_type_id)?.name ?? '';
  const isSite = below.length > 0 || typeName === 'site';
  const reload = () => {
    asset.reload();
    sensors.reload();
    devices.reload();
  };

  return (
    <article className="page" aria-labelledby="asset-title">
      {member && !below.length && list.some(isPower) && <SkipToCompute />}
      <div className="page-head">
        <h1 id="asset-title">{a.name}</h1>
        <span className="muted">{typeLabel(typeName)}</span>
        {parent.data && (
          <span>
            Part of <Link to={`/assets/${parent.data.id}`}>{parent.data.name}</Link>
          </span>
        )}
        <Link to={`/assets/${a.id}/now`}>Site now</Link>
        {member && <Link to={`/assets/${a.id}/add-device`}>Add device</Link>}
      </div>
      <section className="card" aria-labelledby="props-title">
        <h2 id="props-title">Properties</h2>
        <AssetProperties
          asset={a}
          types={types.data ?? []}
          sensors={list}
          canEdit={member}
          canDelete={session.canAdminAccount(a.account_id)}
          onSaved={reload}
        />
      </section>
      {isSite && <SiteSections site={a} zone={zone} devices={below} types={types.data} />}
      <section className="card" aria-labelledby="chart-title">
        <h2 id="chart-title">Chart</h2>
        <AssetChart assetId={a.id} zone={zone} hasSensors={list.length > 0} key={a.attributes} />
      </section>
      <section className="card" aria-labelledby="sensors-title">
        <h2 id="sensors-title">Sensors</h2>
        <SensorList assetId={a.id} sensors={list} canAdd={member} onAdded={sensors.reload} />
      </section>
      <section className="card" aria-labelledby="links-title">
        <h2 id="links-title">Device links (MQTT)</h2>
        <DeviceLinks assetId={a.id} sensors={list} zone={zone} canEdit={member} />
      </section>
      <section className="card" aria-labelledby="flex-title">
        <h2 id="flex-title">Stored flex-model and flex-context</h2>
        <StoredFlexConfig asset={a} canEdit={member} onStored={asset.reload} />
      </section>
      {isCharger(typeName) && (
        <section className="card" aria-labelledby="targets-title">
          <h2 id="targets-title">Charging targets</h2>
          <RecurringTargets assetId={a.id} canEdit={member} />
        </section>
      )}
      <section className="card" aria-labelledby="automations-title">
        <h2 id="automations-title">Automations</h2>
        <AutomationsPanel assetId={a.id} sensors={list} zone={zone} canEdit={member} />
      </section>
      <section className="card" aria-labelledby="schedule-title">
        <h2 id="schedule-title">Schedule</h2>
        {below.length ? (
          <SiteSchedulePanel site={a} devices={below} zone={zone} canSchedule={member} />
        ) : (
          <SchedulePanel asset={a} assetType={typeName} sensors={list} zone={zone} canSchedule={member} onStored={asset.reload} />
        )}
      </section>
    </article>
  );
}
