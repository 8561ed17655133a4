import type { Knex } from 'knex';
import { createMqttLink, deleteMqttLink } from '../../commands/mqttLinks.ts';
import { assetMqttLinks, mqttLink, mqttLinkList } from '../../contracts/mqttLinkAnswers.ts';
import { mqttLinkCreate } from '../../contracts/mqttLinks.ts';
import { notFound } from '../../errors.ts';
import type { AppContext, Services } from '../../http/context.ts';
import { route } from '../../http/routes.ts';
import { can } from '../../policies/access.ts';
import { presentLink } from '../../presenters/mqttLinks.ts';
import { sensorAccess } from '../../policies/references.ts';
import { descendantIds } from '../../store/assets.ts';
import * as store from '../../store/mqttLinks.ts';
import { getSensor } from '../../store/sensors.ts';
import type { User } from '../../store/users.ts';
import { assetById, idParams, sensorById, sensorNeeds } from '../load.ts';

/** The link of the path with its sensor, 404 when unknown; the caller needs `permission` on the sensor. */
async function linkById(db: Knex, id: number, permission: 'read' | 'create-children') {
  const link = await store.getMqttLink(db, id);
  const sensor = link && (await getSensor(db, link.sensorId));
  if (!link || !sensor) throw notFound(`MQTT link ${id} not found`);
  return { link: { value: link, permission, on: sensorNeeds(sensor, permission).on }, sensor: sensorNeeds(sensor, permission) };
}

/** The bridge follows the links as they change (a new topic to subscribe to, credentials to admit). */
const tellBridge = (ctx: AppContext) => ctx.services.mqtt?.linksChanged();

/** Where devices reach a broker: the settings say which, the running embedded broker its port. */
function brokerOf({ config, mqtt }: Services) {
  const s = config.mqtt;
  if (s.mode === 'external') return { mode: s.mode, port: null, url: s.url };
  if (s.mode === 'embedded') return { mode: s.mode, port: mqtt?.brokerPort ?? s.port, url: null };
  return { mode: s.mode, port: null, url: null };
}

/** The links on the sensors of an asset and the assets below it that `user` may read. */
async function siteLinks(db: Knex, user: User, assetId: number): Promise<store.MqttLink[]> {
  const links = await store.listMqttLinks(db, { assetIds: await descendantIds(db, assetId) });
  const readable = new Map<number, boolean>();
  for (const { sensorId } of links) {
    if (readable.has(sensorId)) continue;
    const sensor = await getSensor(db, sensorId);
    readable.set(sensorId, !!sensor && can(user, 'read', sensorAccess(sensor)));
  }
  return links.filter((l) => readable.get(l.sensorId));
}

/** Devices on the LAN: a sensor's MQTT links, in (measurements) and out (setpoints). */
export const mqttLinkRoutes = [
  route({
    method: 'GET',
    path: '/sensors/:id/mqtt-links',
    summary: "List a sensor's MQTT links with what their devices last sent",
    request: { params: idParams },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'read') }),
    command: ({ db, loaded }) => store.listMqttLinks(db, { sensorId: loaded.sensor.id }),
    response: { schema: mqttLinkList, present: (links) => links.map((l) => presentLink(l)) },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/mqtt-links',
    summary: "List the MQTT links of a site's sensors and those of the assets below it, with the broker their devices reach",
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: async ({ ctx, db, user, loaded }) => ({ broker: brokerOf(ctx.services), links: await siteLinks(db, user, loaded.asset.id) }),
    response: { schema: assetMqttLinks, present: ({ broker, links }) => ({ broker, links: links.map((l) => presentLink(l)) }) },
  }),
  route({
    method: 'POST',
    path: '/sensors/:id/mqtt-links',
    summary: 'Link a device to a sensor over MQTT; the answer holds its broker password, shown this once',
    request: { params: idParams, json: mqttLinkCreate },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'create-children') }),
    command: async ({ ctx, context, principal, body, loaded: { sensor } }) => {
      const created = await createMqttLink(context, principal, { sensor, body });
      await tellBridge(ctx);
      return created;
    },
    response: { status: 201, schema: mqttLink, present: ({ link, password }) => presentLink(link, password), description: 'the link' },
  }),
  route({
    method: 'GET',
    path: '/mqtt-links/:id',
    summary: 'An MQTT link with what its device last sent',
    request: { params: idParams },
    load: async ({ db, params }) => linkById(db, params.id, 'read'),
    command: async ({ loaded }) => loaded.link,
    response: { schema: mqttLink, present: (link) => presentLink(link) },
  }),
  route({
    method: 'DELETE',
    path: '/mqtt-links/:id',
    summary: 'Remove an MQTT link; its device is no longer admitted',
    request: { params: idParams },
    load: async ({ db, params }) => linkById(db, params.id, 'create-children'),
    command: async ({ ctx, context, principal, loaded: { link, sensor } }) => {
      await deleteMqttLink(context, principal, { link, sensor });
      await tellBridge(ctx);
    },
    response: { status: 204, schema: null, description: 'removed' },
  }),
];
