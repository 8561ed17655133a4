import { forbidden } from '../errors.ts';
import { rightsOf, type Principal } from '../policies/principal.ts';
import { mayChooseWebhook } from '../policies/roles.ts';
import type { Account } from '../store/accounts.ts';
import { getNotification, type Notification } from '../store/notifications.ts';
import * as write from '../store/write/notifications.ts';
import type { Writes } from './context.ts';

/**
 * Marks a notification seen by the principal's user. The caller has authorized it (members of its
 * account and their consultants read it); the operator is no one who sees notifications.
 * @returns the notification as stored afterwards.
 */
export async function acknowledgeNotification(
  context: Writes<'clock'>,
  principal: Principal,
  input: { notification: Notification },
): Promise<Notification> {
  const user = rightsOf(principal);
  if (!user) throw forbidden();
  await write.acknowledgeNotification(context.db, input.notification.id, user.id, context.clock.now());
  return (await getNotification(context.db, input.notification.id))!;
}

/**
 * Sets the webhook an account's notifications are posted to (null: none). The server posts there
 * from inside the site's network, so it is the deployment's choice: platform admins and the
 * operator only. The caller has checked the URL.
 */
export async function setWebhookUrl(context: Writes, principal: Principal, input: { account: Account; url: string | null }): Promise<void> {
  if (!mayChooseWebhook(principal)) throw forbidden();
  await write.setWebhookUrl(context.db, input.account.id, input.url);
}
