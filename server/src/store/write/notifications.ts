import type { Knex } from 'knex';
import type { Writer } from '../auditLog.ts';
import { getNotification, type DbNotification, type NewNotification, type Notification } from '../notifications.ts';
import { recordAudit } from './auditLog.ts';

/**
 * Stores a notification unless the account already has one about the same subject.
 * @returns the new notification, or undefined when it was already there.
 */
export async function addNotification(db: Knex, n: NewNotification, nowMs: number): Promise<Notification | undefined> {
  const inserted = await db('notification')
    .insert({
      account_id: n.accountId,
      kind: n.kind,
      subject: n.subject,
      message: n.message,
      sensor_id: n.sensorId ?? null,
      job_id: n.jobId ?? null,
      created_at: nowMs,
    })
    .onConflict(['account_id', 'subject'])
    .ignore()
    .returning<{ id: number }[]>('id');
  if (!inserted.length) return undefined;
  return getNotification(db, Number(inserted[0].id));
}

/**
 * Ends the spell a subject stands for (an automation failing until it succeeds): its notification
 * keeps its text but takes a subject of its own, so that the next spell raises a new one.
 */
export async function endSubject(db: Knex, accountId: number, subject: string): Promise<void> {
  const open = await db<DbNotification>('notification').where({ account_id: accountId, subject }).first('id');
  if (open)
    await db('notification')
      .where({ id: open.id })
      .update({ subject: `${subject}:ended:${open.id}` });
}

/** Marks a notification seen (the first acknowledgement stays). */
export async function acknowledgeNotification(trx: Knex.Transaction, id: number, userId: number, nowMs: number): Promise<void> {
  await trx('notification').where({ id }).whereNull('acknowledged_at').update({ acknowledged_at: nowMs, acknowledged_by: userId });
}

/**
 * Marks every notification of an account not yet seen as seen by `userId`, recording it.
 * @returns how many were marked.
 */
export async function acknowledgeAll(
  trx: Knex.Transaction,
  by: Writer,
  target: { accountId: number; userId: number; nowMs: number },
): Promise<number> {
  const { accountId, userId, nowMs } = target;
  const marked = await trx('notification')
    .where({ account_id: accountId })
    .whereNull('acknowledged_at')
    .update({ acknowledged_at: nowMs, acknowledged_by: userId });
  if (marked > 0) await recordAudit(trx, by, { accountId }, `Acknowledged all notifications: ${marked}`);
  return marked;
}

export async function setWebhookUrl(trx: Knex.Transaction, accountId: number, url: string | null): Promise<void> {
  await trx('notification_setting').insert({ account_id: accountId, webhook_url: url }).onConflict('account_id').merge();
}

/** Queues a notification for its account's webhook, in the transaction that stores it. */
export async function queueWebhook(trx: Knex, notificationId: number, nowMs: number): Promise<void> {
  await trx('webhook_delivery').insert({ notification_id: notificationId, attempts: 0, next_at: nowMs });
}

/** A delivery is done with: delivered, given up, or with nothing left to deliver. */
export async function dropDelivery(db: Knex, id: number): Promise<void> {
  await db('webhook_delivery').where({ id }).delete();
}

/** A failed delivery is tried again at `nextAtMs`, counting this attempt. */
export async function retryDelivery(db: Knex, id: number, attempts: number, nextAtMs: number): Promise<void> {
  await db('webhook_delivery').where({ id }).update({ attempts, next_at: nextAtMs });
}
