import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { API } from '../api/client.ts';
import type { Asset, ChartRecord, Sensor } from '../api/types.ts';
import { useSession } from '../app/session.tsx';
import { VegaChart } from '../components/charts/VegaChart.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { Field } from '../components/Field.tsx';
import { RangeControls } from '../components/RangeControls.tsx';
import { CsvUpload } from '../components/sensor/CsvUpload.tsx';
import { ForecastSkill } from '../components/sensor/ForecastSkill.tsx';
import { ForecastNow } from '../components/sensor/ForecastNow.tsx';
import { Empty, ErrorNotice, Loading } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import { useRange } from '../hooks/useRange.ts';
import { toCsv } from '../lib/csv.ts';
import { signConvention, unitWithSign } from '../lib/attributes.ts';
import { NegativeAllDay } from '../components/sensor/NegativeAllDay.tsx';
import { download } from '../lib/download.ts';
import { formatTime, localInputToIso, rangeQuery } from '../lib/time.ts';
import * as wire from '../api/contracts.ts';

/** One sensor: its data over a window as known at a chosen time, as chart or table; upload and download. */
export function SensorPage() {
  const { id } = useParams();
  const session = useSession();
  const sensor = useApi(`${API}/sensors/${id}`, undefined, wire.sensorAnswer);
  const asset = useApi(sensor.data ? `${API}/assets/${sensor.data.generic_asset_id}` : null, undefined, wire.assetAnswer);
  if (sensor.error) return <ErrorNotice error={sensor.error} />;
  if (!sensor.data) return <Loading what="Loading the sensor" />;
  return <SensorView sensor={sensor.data} asset={asset.data} canUpload={session.isMemberOf(asset.data?.account_id ?? null)} />;
}

function SensorView({ sensor, asset, canUpload }: { sensor: Sensor; asset: Asset | undefined; canUpload: boolean }) {
  const zone = sensor.timezone;
  const { size, anchor, range, setRange } = useRange(zone, 'day');
  const [knownAt, setKnownAt] = useState('');
  const [view, setView] = useState<'chart' | 'table'>('chart');
  const query = { ...rangeQuery(range), beliefs_before: localInputToIso(knownAt, zone) };
  const chart = useApi(
    view === 'chart' ? `${API}/sensors/${sensor.id}/chart/` : null,
    { ...query, include_data: true, width: 'container' },
    wire.chartSpec,
  );
  const records = useApi(`${API}/sensors/${sensor.id}/chart_data/`, query, wire.chartRecordList);
  const sources = useApi(`${API}/sources`, { sensor_id: sensor.id }, wire.sourceList);
  const reload = () => {
    chart.reload();
    records.reload();
    sources.reload();
  };

  function saveCsv() {
    const rows = (records.data ?? []).map((r) => [r.event_start, r.event_value, r.unit, r.source, r.belief_time]);
    const day = range.start.toISODate();
    // Power is stored with a sign convention of its own (schedules show consumption positive): the file names it.
    const sign = signConvention(sensor);
    const value = sign ? `event_value (${sign}, ${sign.startsWith('production') ? 'consumption' : 'production'} negative)` : 'event_value';
    download(`${sensor.name}-${day}-${size}.csv`, toCsv([['event_start', value, 'unit', 'source', 'belief_time'], ...rows]));
  }

  return (
    <article className="page" aria-labelledby="sensor-title">
      <div className="page-head">
        <h1 id="sensor-title">{sensor.name}</h1>
        <span className="muted">
          {unitWithSign(sensor)} · {sensor.event_resolution} · {asset ? <Link to={`/assets/${asset.id}`}>{asset.name}</Link> : '…'}
        </span>
      </div>
      <NegativeAllDay sensor={sensor} />
      <section className="card" aria-labelledby="data-title">
        <h2 id="data-title">Data</h2>
        <RangeControls size={size} anchor={anchor} zone={zone} onChange={setRange} />
        <div className="toolbar">
          <Field label={`As known at (${zone})`} hint="Leave empty for the latest knowledge.">
            <input type="datetime-local" value={knownAt} onChange={(e) => setKnownAt(e.target.value)} />
          </Field>
          <div className="segmented" role="radiogroup" aria-label="View">
            {(['chart', 'table'] as const).map((v) => (
              <label key={v} className={v === view ? 'active' : ''}>
                <input type="radio" name="view" value={v} checked={v === view} onChange={() => setView(v)} />
                {v === 'chart' ? 'Chart' : 'Table'}
              </label>
            ))}
          </div>
          <button type="button" onClick={saveCsv} disabled={!records.data?.length}>
            Download CSV
          </button>
        </div>
        {sources.data && sources.data.sources.length > 0 && (
          <p className="muted" aria-label="Data sources">
            Data from {sources.data.sources.map((s) => `${s.name} (${[s.type, s.model, s.version].filter(Boolean).join(' ')})`).join(', ')}.
          </p>
        )}
        <ErrorNotice error={chart.error ?? records.error} />
        {records.data && records.data.length === 0 && <Empty>No data in this window{knownAt ? ' as known at that time' : ''}.</Empty>}
        {view === 'chart' ? (
          records.data?.length !== 0 && <VegaChart spec={chart.data} label="Sensor chart" />
        ) : (
          <SensorData records={records.data} zone={zone} sign={signConvention(sensor)} />
        )}
      </section>
      <section className="card" aria-labelledby="forecast-title">
        <h2 id="forecast-title">Forecasts</h2>
        {canUpload && <ForecastNow sensorId={sensor.id} zone={zone} onMade={reload} />}
        {sources.data ? (
          <ForecastSkill sensorId={sensor.id} unit={sensor.unit} forecast={sources.data.sources.some((s) => s.type === 'forecaster')} />
        ) : (
          <Loading what="Loading the sources" />
        )}
      </section>
      {canUpload && (
        <section className="card" aria-labelledby="upload-title">
          <h2 id="upload-title">Upload data</h2>
          <CsvUpload sensor={sensor} onUploaded={reload} />
        </section>
      )}
    </article>
  );
}

/** The window's beliefs as rows, each value with its unit (and a power sensor's sign in the heading). */
function SensorData({ records, zone, sign }: { records: ChartRecord[] | undefined; zone: string; sign: string | undefined }) {
  if (!records) return <Loading what="Loading data" />;
  if (!records.length) return null;
  return (
    <DataTable
      label="Sensor data"
      wrap="table-wrap tall"
      columns={[`Event start (${zone})`, `Value${sign ? ` (${sign})` : ''}`, 'Source', 'Belief time']}
      rows={records}
      row={(r) => (
        <tr key={`${r.event_start}|${r.source_id}|${r.belief_time}`}>
          <td>{formatTime(r.event_start, zone)}</td>
          <td className="num">
            {r.event_value} {r.unit}
          </td>
          <td>{r.source}</td>
          <td>{formatTime(r.belief_time, zone)}</td>
        </tr>
      )}
    />
  );
}
