import { forbidden } from '../errors.ts';
import { auditActor, rightsOf, type Principal } from '../policies/principal.ts';
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
 * Marks every notification of an account not yet seen as seen by the principal's user, with an
 * audit entry. The caller has authorized the account (as for one notification); other accounts'
 * notifications are never touched.
 * @returns how many were acknowledged.
 */
export async function acknowledgeAllNotifications(
  context: Writes<'clock'>,
  principal: Principal,
  input: { account: Account },
): Promise<{ acknowledged: number }> {
  const user = rightsOf(principal);
  if (!user) throw forbidden();
  const acknowledged = await write.acknowledgeAll(context.db, auditActor(principal), {
    accountId: input.account.id,
    userId: user.id,
    nowMs: context.clock.now(),
  });
  return { acknowledged };
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
