import type { Knex } from 'knex';
import { z } from 'zod';
import { webhookUrlProblem } from '../../attention/webhook.ts';
import { acknowledgeAllNotifications, acknowledgeNotification, setWebhookUrl } from '../../commands/notifications.ts';
import { boolText, intText } from '../../contracts/fields.ts';
import * as cockpit from '../../contracts/cockpit.ts';
import { fieldError, forbidden, notFound } from '../../errors.ts';
import { route, type Loaded } from '../../http/routes.ts';
import { mayChooseWebhook, maySeeWebhook } from '../../policies/roles.ts';
import { presentNotification } from '../../presenters/notifications.ts';
import { getAccount } from '../../store/accounts.ts';
import * as notifications from '../../store/notifications.ts';
import { accountAccess, accountById, idParams, listedAccount } from '../load.ts';

const notificationQuery = z.object({
  account_id: intText.optional(),
  unacknowledged: boolText.optional(),
  limit: intText.pipe(z.number().min(1).max(1000)).optional(),
});

/** A notification, 404 when unknown; judged by its account. */
async function notificationById(db: Knex, id: number): Promise<Loaded<notifications.Notification>> {
  const n = await notifications.getNotification(db, id);
  const account = n && (await getAccount(db, n.accountId));
  if (!n || !account) throw notFound(`Notification ${id} not found`);
  return { value: n, permission: 'read', on: accountAccess(account) };
}

/** What needs an account's attention, and where it is sent. */
export const notificationRoutes = [
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
    path: '/notifications/acknowledge',
    summary: "Acknowledge all of an account's notifications not yet acknowledged (the caller's own account by default)",
    request: { json: cockpit.acknowledgeAll },
    // Those who see an account's notifications may mark them seen, one by one or all at once.
    load: async ({ db, user, body }) => ({ account: await listedAccount(db, user, body.account_id) }),
    transaction: true,
    command: ({ context, principal, loaded: { account } }) => acknowledgeAllNotifications(context, principal, { account }),
    response: { schema: cockpit.acknowledgedAll },
  }),
  route({
    method: 'POST',
    path: '/notifications/:id/acknowledge',
    summary: 'Acknowledge a notification',
    request: { params: idParams },
    // Members of the account (and its consultants) see its notifications, so they may mark them seen.
    load: async ({ db, params }) => ({ notification: await notificationById(db, params.id) }),
    transaction: true,
    command: ({ context, principal, loaded: { notification } }) => acknowledgeNotification(context, principal, { notification }),
    response: { schema: cockpit.notification, present: presentNotification },
  }),
  route({
    method: 'GET',
    path: '/accounts/:id/notification-settings',
    summary: "Get where an account's notifications are sent besides the mail outbox",
    request: { params: idParams },
    load: async ({ db, params }) => ({ account: await accountById(db, params.id, 'read') }),
    async command({ db, user, loaded }) {
      const url = await notifications.webhookUrlOf(db, loaded.account.id);
      // Others who read the account see that notifications go to a webhook, and where, not its secret parts.
      return { webhook_url: url === null || maySeeWebhook(user, loaded.account.id) ? url : `${new URL(url).origin}/…` };
    },
    response: { schema: cockpit.notificationSettings },
  }),
  route({
    method: 'PATCH',
    path: '/accounts/:id/notification-settings',
    summary: "Set the webhook URL the server posts an account's notifications to (platform admins)",
    // The server will post to this URL from inside the site's network: a deployment's choice, as a
    // scheduler plugin is, never an account member's (nothing a user stores becomes a URL it acts on).
    guard: ({ user }) => {
      if (!mayChooseWebhook(user)) throw forbidden();
    },
    request: { params: idParams, json: cockpit.notificationSettings },
    load: async ({ db, params }) => ({ account: await accountById(db, params.id, 'read') }),
    check: ({ body }) => {
      const problem = body.webhook_url === null ? undefined : webhookUrlProblem(body.webhook_url);
      if (problem) throw fieldError('json', 'webhook_url', problem);
    },
    transaction: true,
    async command({ context, principal, body, loaded: { account } }) {
      await setWebhookUrl(context, principal, { account, url: body.webhook_url });
      return { webhook_url: body.webhook_url };
    },
    response: { schema: cockpit.notificationSettings },
  }),
];
