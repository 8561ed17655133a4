import { Link, useParams } from 'react-router';
import { DateTime } from 'luxon';
import { z } from 'zod';
import { API } from '../api/client.ts';
import * as cockpit from '../../../server/src/contracts/cockpit.ts';
import { assetMqttLinks, type MqttLinkWire } from '../../../server/src/contracts/mqttLinkAnswers.ts';
import { useSession } from '../app/session.tsx';
import { DataTable, LoadedView, RowLink } from '../components/DataTable.tsx';
import { NeedsAttention } from '../components/cockpit/NeedsAttention.tsx';
import { TariffsSection } from '../components/cockpit/Tariffs.tsx';
import { PlanActualChart } from '../components/cockpit/PlanActualChart.tsx';
import { MoneyPanel } from '../components/cockpit/MoneyPanel.tsx';
import { BatteryReplay } from '../components/site/BatteryReplay.tsx';
import { useApi } from '../hooks/useApi.ts';
import { usePolling } from '../hooks/usePolling.ts';
import { formatReading, messageAge } from '../lib/deviceLinks.ts';
import { formatAge, formatTime } from '../lib/time.ts';

/** How often the sensors' values are read again: a value posted or a device's reading shows within a few seconds. */
const LIVE_MS = 3000;

type SiteNow = z.infer<typeof cockpit.siteNow>;

/** How long a sensor may be silent, in words: `30 min`, `2 h`. */
const silence = (minutes: number) => (minutes % 60 === 0 ? `${minutes / 60} h` : `${minutes} min`);

/**
 * A sensor's data health: stale shown as the problem it is (a warning badge with a sign and the
 * age it allows, not colour alone), a load negative all day (its sign is likely wrong), and the
 * payloads its devices sent that could not be read.
 */
function Health({ s, zone }: { s: SiteNow['sensors'][number]; zone: string }) {
  const trap = s.negative_all_day ? `; negative all day on ${s.negative_all_day.day}: check its sign` : '';
  const m = s.malformed_messages;
  const unreadable = m?.count
    ? `; ${m.count} unreadable device message${m.count === 1 ? '' : 's'}${m.last_at ? `, last at ${formatTime(m.last_at, zone)}` : ''}`
    : '';
  const more = trap + unreadable;
  if (!s.latest) return <>No data{more}</>;
  if (!s.stale) return <>OK{more}</>;
  return (
    <>
      <span className="badge warned" title={`No measurement for over ${silence(s.stale_after_minutes)}`}>
        <span aria-hidden="true">⚠ </span>Stale
      </span>{' '}
      <span className="muted">over {silence(s.stale_after_minutes)} without data</span>
      {more}
    </>
  );
}

/**
 * The operator's cockpit for one site: the latest value of each sensor with its age and data
 * health, updated by polling with the time of the last answer on screen, what this month's
 * schedules cost against doing nothing, and what needs attention with a button to acknowledge it.
 */
export function SiteNowPage() {
  const { id } = useParams();
  const userZone = useSession().user.timezone;
  const now = useApi(`${API}/assets/${id}/now`, undefined, cockpit.siteNow);
  // Times on this page are the site's, wherever the operator's browser or profile is.
  const zone = now.data?.timezone ?? userZone;
  const links = useApi(`${API}/assets/${id}/mqtt-links`, undefined, assetMqttLinks);
  usePolling(now.reload, LIVE_MS);
  usePolling(links.reload, LIVE_MS);

  return (
    <section className="page" aria-labelledby="now-title">
      <div className="page-head">
        <h1 id="now-title">Site now</h1>
        <Link to={`/assets/${id}`}>Asset details</Link>
      </div>
      <LoadedView state={now} what="Reading the sensors">
        {(data) => <SensorsNow now={data} zone={zone} links={links.data?.links ?? []} />}
      </LoadedView>
      <h2>Money this month</h2>
      <MoneyPanel assetId={id ?? ''} />
      <h2>Plan against actual</h2>
      {now.data && <PlanActualChart assetId={id ?? ''} zone={zone} sensors={now.data.sensors} />}
      <h2>Tariffs</h2>
      <TariffsSection assetId={id ?? ''} zone={zone} />
      <h2>Needs attention</h2>
      <NeedsAttention zone={zone} />
      <h2>Would a battery pay?</h2>
      {now.data && <BatteryReplay assetId={id ?? ''} zone={zone} />}
    </section>
  );
}

/** What a sensor's devices sent last over MQTT, as it arrived (stored only once its interval closes). */
function deviceNow(links: MqttLinkWire[], sensor: SiteNow['sensors'][number], nowMs: number): string {
  const heard = links.filter((l) => l.sensor_id === sensor.id && l.status.last_value !== null);
  const last = heard.sort((a, b) => (messageAge(a, nowMs) ?? 0) - (messageAge(b, nowMs) ?? 0))[0];
  if (!last) return 'no message yet';
  return `${formatReading(last.status.last_value!)} ${sensor.unit}, ${formatAge(messageAge(last, nowMs) ?? 0)} ago`;
}

/** The latest value of each sensor, its age and health, what its device sends now, and the time of the answer. */
function SensorsNow({ now, zone, links }: { now: SiteNow; zone: string; links: MqttLinkWire[] }) {
  const fed = new Set(links.filter((l) => l.direction === 'in').map((l) => l.sensor_id));
  // Ages as of the server's answer, on the clock the devices' times come from.
  const nowMs = Date.parse(now.now);
  return (
    <div className="card table-wrap">
      <p role="status" aria-label="Updated">
        Updated {DateTime.fromISO(now.now).setZone(zone).toFormat('HH:mm:ss')}
      </p>
      <DataTable
        wrap={null}
        label="Sensors now"
        columns={['Sensor', 'Asset', 'Latest', 'Age', fed.size > 0 && 'Device now', 'Health', 'Gaps today', `Last upload (${zone})`]}
        rows={now.sensors}
        empty="This site has no sensors yet."
        row={(s) => (
          <tr key={s.id} data-sensor={s.id}>
            <RowLink to={`/sensors/${s.id}`}>{s.name}</RowLink>
            <td>{s.asset}</td>
            <td>{s.latest ? `${s.latest.value} ${s.sign ? `${s.unit}, ${s.sign}` : s.unit}` : '–'}</td>
            <td>{s.latest ? formatAge(s.latest.age_seconds) : '–'}</td>
            {fed.size > 0 && <td>{fed.has(s.id) ? deviceNow(links, s, nowMs) : '–'}</td>}
            <td>
              <Health s={s} zone={zone} />
            </td>
            <td>{s.gaps_today ?? '–'}</td>
            <td>{s.last_upload ? `${formatTime(s.last_upload.at, zone)} by ${s.last_upload.source}` : '–'}</td>
          </tr>
        )}
      />
      <StaleRule sensors={now.sensors} />
    </div>
  );
}

/** When a sensor counts as stale, and what counts as a measurement: the rule the Health column applies. */
function StaleRule({ sensors }: { sensors: SiteNow['sensors'] }) {
  const instant = sensors.find((s) => s.resolution_minutes === 0);
  return (
    <p className="muted" aria-label="When a sensor is stale">
      A sensor is stale when its latest measurement ended more than twice its resolution ago
      {instant && `; an instantaneous sensor (such as a state of charge) after ${silence(instant.stale_after_minutes)} without a reading`}.
      Forecasts (values believed before their time) never count as measurements.
    </p>
  );
}
