import { useState } from 'react';
import { z } from 'zod';
import { assetMqttLinks, mqttLink, type MqttLinkWire } from '../../../../server/src/contracts/mqttLinkAnswers.ts';
import { API, request } from '../../api/client.ts';
import type { Sensor } from '../../api/types.ts';
import { useApi } from '../../hooks/useApi.ts';
import { useSubmit } from '../../hooks/useSubmit.ts';
import { describeLastMessage, describeValue, deviceTopic, lastMessageCell } from '../../lib/deviceLinks.ts';
import { DataTable } from '../DataTable.tsx';
import { FormError } from '../Form.tsx';
import { ErrorNotice, Loading } from '../Status.tsx';
import { NewDeviceLink } from './NewDeviceLink.tsx';

type Broker = z.infer<typeof assetMqttLinks>['broker'];

/** Where devices reach the broker, or how to switch MQTT on. */
function BrokerNotice({ broker }: { broker: Broker }) {
  if (broker.mode === 'off')
    return (
      <p className="notice info" role="note">
        MQTT is off on this server, so devices cannot send readings here. Start Flexsite with <code>FLEXSITE_MQTT=embedded</code> to run a
        broker inside it (port 1883), or with <code>FLEXSITE_MQTT_URL=mqtt://host:1883</code> to use the site’s own broker.
      </p>
    );
  if (broker.mode === 'external')
    return (
      <p className="muted">
        Devices publish to the site’s broker at <code>{broker.url}</code>, under its own access rules.
      </p>
    );
  return (
    <p className="muted">
      Devices connect to the broker inside Flexsite: port <code>{broker.port}</code> on this machine’s address, each with its own link’s
      username and password.
    </p>
  );
}

/**
 * A device's MQTT links on its asset page: which topic feeds which sensor and how, what each
 * device last sent, a test that reads that again, removal, and a form for a new link; when MQTT
 * is off, how to switch it on instead of the form.
 */
export function DeviceLinks({ assetId, sensors, zone, canEdit }: { assetId: number; sensors: Sensor[]; zone: string; canEdit: boolean }) {
  const site = useApi(`${API}/assets/${assetId}/mqtt-links`, undefined, assetMqttLinks);
  const acting = useSubmit();
  const [tested, setTested] = useState<{ name: string; text: string } | null>(null);
  const unitOf = (l: MqttLinkWire) => sensors.find((s) => s.id === l.sensor_id)?.unit ?? '';

  if (site.error) return <ErrorNotice error={site.error} />;
  if (!site.data) return <Loading what="Loading the device links" />;
  // The answer covers the assets below too; this page shows the asset's own.
  const links = site.data.links.filter((l) => sensors.some((s) => s.id === l.sensor_id));
  const { broker } = site.data;
  const lastHeading = `Last message (${zone})`;

  const test = (link: MqttLinkWire) =>
    acting.run(async () => {
      setTested(null);
      const fresh = await request(`${API}/mqtt-links/${link.id}`, { answer: mqttLink });
      setTested({ name: fresh.name, text: describeLastMessage(fresh, unitOf(fresh), Date.now()) });
      site.reload();
    });
  const remove = (link: MqttLinkWire) => {
    if (!window.confirm(`Remove the link "${link.name}" (${deviceTopic(link)})? Its device can no longer sign in to the broker.`)) return;
    void acting.run(async () => {
      await request(`${API}/mqtt-links/${link.id}`, { method: 'DELETE' });
      setTested(null);
      site.reload();
    });
  };

  return (
    <>
      <BrokerNotice broker={broker} />
      {tested && (
        <p className="notice ok" role="status" aria-label="Link test">
          {tested.name}: {tested.text}
        </p>
      )}
      <FormError error={acting.error} />
      <DataTable
        label="Device links"
        wrap="table-wrap"
        columns={['Link', 'Sensor', 'Topic', 'Value', lastHeading, 'Unreadable', canEdit && 'Actions']}
        rows={links}
        empty={
          sensors.length
            ? 'No device sends to or reads from these sensors over MQTT yet.'
            : 'This device has no sensors yet; a link feeds one of them.'
        }
        row={(l) => (
          <tr key={l.id} data-link={l.id}>
            <th scope="row">
              {l.name} <span className="muted">({l.direction === 'in' ? 'in' : 'out'})</span>
            </th>
            <td>{sensors.find((s) => s.id === l.sensor_id)?.name}</td>
            <td>
              <code>{deviceTopic(l)}</code>
            </td>
            <td>{describeValue(l)}</td>
            <td>{lastMessageCell(l, unitOf(l), zone)}</td>
            <td className="num">{l.direction === 'in' ? l.status.malformed : '–'}</td>
            {canEdit && (
              <td>
                <div className="row-actions">
                  {l.direction === 'in' && (
                    <button type="button" disabled={acting.busy} onClick={() => void test(l)}>
                      Test
                    </button>
                  )}
                  <button type="button" className="danger" disabled={acting.busy} onClick={() => remove(l)}>
                    Remove
                  </button>
                </div>
              </td>
            )}
          </tr>
        )}
      />
      {canEdit && broker.mode !== 'off' && sensors.length > 0 && <NewDeviceLink sensors={sensors} broker={broker} onMade={site.reload} />}
    </>
  );
}
