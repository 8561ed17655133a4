import type { Knex } from 'knex';
import { z } from 'zod';
import { webhookUrlProblem } from '../../attention/webhook.ts';
import { awareDateTime, boolText, intText } from '../../contracts/fields.ts';
import * as cockpit from '../../contracts/cockpit.ts';
import * as tariffWire from '../../contracts/tariffs.ts';
import type { Reference } from '../../policies/references.ts';
import * as tariffs from '../../store/tariffs.ts';
import { assetKpis } from '../../commands/assetKpis.ts';
import { siteNow } from '../../commands/siteNow.ts';
import { fieldError, notFound } from '../../errors.ts';
import { route, type Loaded } from '../../http/routes.ts';
import { presentNotification } from '../../presenters/notifications.ts';
import { getAccount } from '../../store/accounts.ts';
import * as notifications from '../../store/notifications.ts';
import { accountAccess, accountById, assetById, idParams, listedAccount } from '../load.ts';

const MAX_KPI_WINDOW_MS = 400 * 86_400_000;

const kpiQuery = z.object({ start: awareDateTime, end: awareDateTime });

const notificationQuery = z.object({
  account_id: intText.optional(),
  unacknowledged: boolText.optional(),
  limit: intText.pipe(z.number().min(1).max(1000)).optional(),
});

const presentTariff = (t: tariffs.Tariff) => ({
  id: t.id,
  asset_id: t.assetId,
  definition: t.definition,
  created_at: new Date(t.createdAtMs).toISOString(),
});

/** The price sensors a tariff will write to. */
function tariffSensors(body: tariffWire.TariffDefinition): Reference[] {
  const refs: Reference[] = [
    { kind: 'sensor', id: body.consumption_price_sensor, use: 'write', location: 'json', field: 'consumption_price_sensor' },
  ];
  if (body.production_price_sensor !== undefined) {
    refs.push({ kind: 'sensor', id: body.production_price_sensor, use: 'write', location: 'json', field: 'production_price_sensor' });
  }
  return refs;
}

const presentConnector = (c: tariffs.PriceConnector) => ({
  id: c.id,
  asset_id: c.assetId,
  sensor: c.sensorId,
  bidding_zone: c.biddingZone,
  bidding_zone_name: tariffWire.biddingZones[c.biddingZone as keyof typeof tariffWire.biddingZones] ?? c.biddingZone,
  created_at: new Date(c.createdAtMs).toISOString(),
});

/** A notification, 404 when unknown; judged by its account. */
async function notificationById(db: Knex, id: number): Promise<Loaded<notifications.Notification>> {
  const n = await notifications.getNotification(db, id);
  const account = n && (await getAccount(db, n.accountId));
  if (!n || !account) throw notFound(`Notification ${id} not found`);
  return { value: n, permission: 'read', on: accountAccess(account) };
}

/** The operator's cockpit: money, attention and the site now. */
export const cockpitRoutes = [
  route({
    method: 'GET',
    path: '/assets/:id/kpis',
    summary: "Get the cost of an asset's schedules against doing nothing, planned and realised, per day and month",
    request: { params: idParams, query: kpiQuery },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    check: ({ query }) => {
      const [startMs, endMs] = [query.start.toMillis(), query.end.toMillis()];
      if (endMs <= startMs) throw fieldError('query', 'end', 'Must be after start.');
      // A bound on the work one request makes: a year and a bit covers the monthly view.
      if (endMs - startMs > MAX_KPI_WINDOW_MS) throw fieldError('query', 'end', 'The window may span at most 400 days.');
      return { startMs, endMs };
    },
    command: ({ db, loaded, checked }) => assetKpis(db, loaded.asset.id, checked.startMs, checked.endMs),
    response: { schema: cockpit.assetKpis },
  }),
  route({
    method: 'GET',
    path: '/notifications',
    summary: "List an account's notifications (the caller's own by default), newest first",
    request: { query: notificationQuery },
    load: async ({ db, user, query }) => ({ account: await listedAccount(db, user, query.account_id) }),
    command: ({ db, query, loaded }) =>
      notifications.listNotifications(db, loaded.account.id, {
        unacknowledgedOnly: query.unacknowledged ?? false,
        limit: query.limit ?? 100,
      }),
    response: { schema: z.array(cockpit.notification), present: (list) => list.map(presentNotification) },
  }),
  route({
    method: 'POST',
    path: '/notifications/:id/acknowledge',
    summary: 'Acknowledge a notification',
    request: { params: idParams },
    // Members of the account (and its consultants) see its notifications, so they may mark them seen.
    load: async ({ db, params }) => ({ notification: await notificationById(db, params.id) }),
    transaction: true,
    async command({ db, user, loaded }) {
      await notifications.acknowledgeNotification(db, loaded.notification.id, user.id, Date.now());
      return (await notifications.getNotification(db, loaded.notification.id))!;
    },
    response: { schema: cockpit.notification, present: presentNotification },
  }),
  route({
    method: 'GET',
    path: '/accounts/:id/notification-settings',
    summary: "Get where an account's notifications are sent besides the mail outbox",
    request: { params: idParams },
    load: async ({ db, params }) => ({ account: await accountById(db, params.id, 'read') }),
    command: async ({ db, loaded }) => ({ webhook_url: await notifications.webhookUrlOf(db, loaded.account.id) }),
    response: { schema: cockpit.notificationSettings },
  }),
  route({
    method: 'PATCH',
    path: '/accounts/:id/notification-settings',
    summary: "Set the webhook URL the server posts an account's notifications to (account admins)",
    request: { params: idParams, json: cockpit.notificationSettings },
    // The server will post to this URL: only the account's admins choose it.
    load: async ({ db, params }) => ({ account: await accountById(db, params.id, 'create-children') }),
    check: ({ body }) => {
      const problem = body.webhook_url === null ? undefined : webhookUrlProblem(body.webhook_url);
      if (problem) throw fieldError('json', 'webhook_url', problem);
    },
    transaction: true,
    async command({ db, body, loaded }) {
      await notifications.setWebhookUrl(db, loaded.account.id, body.webhook_url);
      return { webhook_url: body.webhook_url };
    },
    response: { schema: cockpit.notificationSettings },
  }),
  route({
    method: 'POST',
    path: '/assets/:id/tariffs',
    summary: 'Add a fixed or time-of-use tariff, written ahead as price beliefs',
    request: { params: idParams, json: tariffWire.tariffDefinition },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'create-children') }),
    references: ({ body }) => tariffSensors(body),
    transaction: true,
    command: ({ db, user, body, loaded }) => tariffs.createTariff(db, loaded.asset.id, user.id, body, Date.now()),
    response: { status: 201, schema: tariffWire.tariff, present: presentTariff, description: 'the tariff' },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/tariffs',
    summary: "List an asset's tariffs",
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ db, loaded }) => tariffs.listTariffs(db, { assetId: loaded.asset.id }),
    response: { schema: z.array(tariffWire.tariff), present: (list) => list.map(presentTariff) },
  }),
  route({
    method: 'GET',
    path: '/price-connectors/bidding-zones',
    summary: 'List the bidding zones a day-ahead price connector may follow',
    command: async () => Object.entries(tariffWire.biddingZones).map(([code, name]) => ({ code, name })),
    response: { schema: tariffWire.biddingZoneList },
  }),
  route({
    method: 'POST',
    path: '/assets/:id/price-connectors',
    summary: "Write a bidding zone's ENTSO-E day-ahead prices to a price sensor (when the operator set a token)",
    request: { params: idParams, json: tariffWire.priceConnectorInput },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'create-children') }),
    references: ({ body }) => [{ kind: 'sensor', id: body.sensor, use: 'write', location: 'json', field: 'sensor' }],
    transaction: true,
    command: ({ db, user, body, loaded }) =>
      tariffs.createPriceConnector(
        db,
        { assetId: loaded.asset.id, ownerId: user.id, sensorId: body.sensor, biddingZone: body.bidding_zone },
        Date.now(),
      ),
    response: { status: 201, schema: tariffWire.priceConnector, present: presentConnector, description: 'the connector' },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/price-connectors',
    summary: "List an asset's day-ahead price connectors",
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ db, loaded }) => tariffs.listPriceConnectors(db, { assetId: loaded.asset.id }),
    response: { schema: z.array(tariffWire.priceConnector), present: (list) => list.map(presentConnector) },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/now',
    summary: 'Get the latest value of each sensor of a site, its age and the health of its data',
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ db, loaded }) => siteNow(db, loaded.asset.id, Date.now()),
    response: { schema: cockpit.siteNow },
  }),
];
