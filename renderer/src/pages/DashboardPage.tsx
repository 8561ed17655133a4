import { useMemo, type FormEvent } from 'react';
import { DateTime } from 'luxon';
import { Link, useNavigate } from 'react-router';
import { API, request } from '../api/client.ts';
import type { Asset, AssetType, Job, Sensor } from '../api/types.ts';
import { useSession } from '../app/session.tsx';
import { Sparkline } from '../components/charts/Sparkline.tsx';
import { AssetKindFields } from '../components/asset/AssetKindFields.tsx';
import { Field } from '../components/Field.tsx';
import { JobStatus } from '../components/JobStatus.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { PlanAheadGlance } from '../components/site/PlanAhead.tsx';
import { PowerFlow } from '../components/site/PowerFlow.tsx';
import { useSiteDevices } from '../components/site/useSiteDevices.ts';
import { typeLabelOf } from '../lib/assetTypes.ts';
import { SubmitBar } from '../components/Form.tsx';
import { ErrorNotice, Loading } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import { useForm } from '../hooks/useForm.ts';
import { useSubmit } from '../hooks/useSubmit.ts';
import { parseAttributes, sensorsToShow } from '../lib/attributes.ts';
import { formatTime } from '../lib/time.ts';
import * as wire from '../api/contracts.ts';

/**
 * The sites of the account and the public ones (assets at the top, the devices below each), each
 * with its main sensor's recent values and its devices' latest job.
 */
export function DashboardPage() {
  const session = useSession();
  const own = useApi(`${API}/assets`, undefined, wire.assetList);
  const pub = useApi(`${API}/assets/public`, undefined, wire.assetList);
  const types = useApi(`${API}/assets/types`, undefined, wire.assetTypeList);
  const jobs = useApi(`${API}/jobs`, { limit: 200 }, wire.jobList);
  const typeName = (id: number) => typeLabelOf(types.data, id);
  const canCreate = session.canAdminAccount(session.user.account_id);

  return (
    <section className="page" aria-labelledby="dashboard-title">
      <div className="page-head">
        <h1 id="dashboard-title">Sites</h1>
      </div>
      <ErrorNotice error={own.error ?? pub.error} />
      {own.loading && !own.data ? (
        <Loading what="Loading sites" />
      ) : (
        <AssetTable
          title="Your account"
          assets={own.data ?? []}
          typeName={typeName}
          jobs={jobs.data ?? []}
          empty="Your account has no assets yet."
        />
      )}
      {sitesOf(own.data ?? []).map((site) => (
        <PlanAheadGlance key={site.id} assetId={site.id} name={site.name} />
      ))}
      {pub.data && pub.data.length > 0 && <AssetTable title="Public" assets={pub.data} typeName={typeName} jobs={[]} empty="" />}
      {canCreate && <NewAsset types={types.data ?? []} accountId={session.user.account_id} />}
    </section>
  );
}

/** Sites are the assets at the top; a device is listed under its site, not as a site of its own. */
function sitesOf(assets: Asset[]): Asset[] {
  const ids = new Set(assets.map((a) => a.id));
  return assets.filter((a) => a.parent_asset_id === null || !ids.has(a.parent_asset_id));
}

function AssetTable(props: { title: string; assets: Asset[]; typeName: (id: number) => string; jobs: Job[]; empty: string }) {
  const sites = sitesOf(props.assets);
  return (
    <section className="card" aria-label={props.title}>
      <h2>{props.title}</h2>
      <DataTable
        columns={['Site and its devices', 'Type', 'Main sensor, past week and next days', 'Latest schedule']}
        rows={sites}
        empty={props.empty}
        row={(a) => <AssetRow key={a.id} asset={a} typeName={props.typeName} jobs={props.jobs} />}
      />
    </section>
  );
}

function AssetRow({ asset, typeName, jobs }: { asset: Asset; typeName: (id: number) => string; jobs: Job[] }) {
  const session = useSession();
  const sensors = useApi(`${API}/sensors`, { asset_id: asset.id }, wire.sensorList);
  const devices = useSiteDevices(asset.id);
  const all = useMemo(() => [...(sensors.data ?? []), ...(devices.data ?? []).flatMap((d) => d.sensors)], [sensors.data, devices.data]);
  const main = useMemo(() => {
    const shown = sensorsToShow(parseAttributes(asset.attributes));
    return all.find((s) => s.id === shown[0]) ?? all[0];
  }, [asset.attributes, all]);
  const ids = new Set(all.map((s) => s.id));
  const latest = jobs.find((j) => j.sensor_id !== null && ids.has(j.sensor_id));
  return (
    <tr>
      <th scope="row">
        <Link to={`/assets/${asset.id}`}>{asset.name}</Link>
        {(devices.data?.length ?? 0) > 0 && (
          <ul className="plain" aria-label={`Devices of ${asset.name}`}>
            {devices.data!.map((d) => (
              <li key={d.asset.id}>
                <Link to={`/assets/${d.asset.id}`}>{d.asset.name}</Link>{' '}
                <span className="muted">{typeName(d.asset.generic_asset_type_id)}</span>
              </li>
            ))}
          </ul>
        )}
        {(devices.data?.length ?? 0) > 0 && (
          <PowerFlow assetId={asset.id} zone={all[0]?.timezone ?? session.user.timezone} name={asset.name} />
        )}
      </th>
      <td>{typeName(asset.generic_asset_type_id)}</td>
      <td>{main ? <MainSensorSparkline sensor={main} /> : <span className="muted">{sensors.loading ? '…' : 'no sensors'}</span>}</td>
      <td>
        {latest ? (
          <Link to={`/jobs/${latest.id}`} className="job-link">
            <JobStatus job={latest} />{' '}
            <span className="muted">{formatTime(latest.created_at, main?.timezone ?? session.user.timezone)}</span>
          </Link>
        ) : (
          <span className="muted">none</span>
        )}
      </td>
    </tr>
  );
}

function MainSensorSparkline({ sensor }: { sensor: Sensor }) {
  const span = useMemo(() => {
    const now = DateTime.now().startOf('hour');
    // The past week and what is already known of the next two days (forecasts, prices).
    return { event_starts_after: now.minus({ days: 7 }).toISO(), event_ends_before: now.plus({ days: 2 }).toISO() };
  }, []);
  const data = useApi(`${API}/sensors/${sensor.id}/chart_data/`, span, wire.chartRecordList);
  const values = useMemo(() => (data.data ?? []).map((r) => ({ t: Date.parse(r.event_start), v: r.event_value })), [data.data]);
  if (data.loading && !data.data) return <span className="muted">…</span>;
  return (
    <span className="spark">
      <Sparkline values={values} label={`${sensor.name}, past week and next days`} /> <span className="muted">{sensor.name}</span>
    </span>
  );
}

function NewAsset({ types, accountId }: { types: AssetType[]; accountId: number }) {
  const navigate = useNavigate();
  const { form, set } = useForm({ name: '', type: '', latitude: '', longitude: '' });
  const submitting = useSubmit();
  const { fields } = submitting;

  function submit(e: FormEvent) {
    e.preventDefault();
    void submitting.run(async () => {
      const asset = await request(`${API}/assets`, {
        answer: wire.asset,
        method: 'POST',
        json: {
          name: form.name,
          generic_asset_type_id: Number(form.type),
          account_id: accountId,
          ...(form.latitude ? { latitude: Number(form.latitude) } : {}),
          ...(form.longitude ? { longitude: Number(form.longitude) } : {}),
        },
      });
      navigate(`/assets/${asset.id}`);
    });
  }

  return (
    <details className="card">
      <summary>
        <h2>New asset</h2>
      </summary>
      <form onSubmit={submit} className="grid-form" aria-label="New asset">
        <Field label="Name" errors={fields.name}>
          <input required value={form.name} onChange={set('name')} />
        </Field>
        <AssetKindFields form={form} set={set} fields={fields} types={types} choose />
        <SubmitBar submitting={submitting} busyLabel="Creating…">
          Create asset
        </SubmitBar>
      </form>
    </details>
  );
}
