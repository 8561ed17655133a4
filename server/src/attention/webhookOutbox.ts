import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { Periodic } from '../periodic.ts';
import { presentNotification } from '../presenters/notifications.ts';
import { getNotification, webhookUrlOf } from '../store/notifications.ts';
import { postWebhook } from './webhook.ts';

/** How often the outbox looks for due deliveries: how late a notification reaches a webhook at most. */
const DRAIN_MS = 5_000;
/** Deliveries one drain attempts: a backlog is worked off over several drains, not in one burst. */
const BATCH = 50;
/**
 * Waits before the 2nd … 6th attempt; after the last, the delivery is given up (logged): a receiver
 * down for longer than about an hour and a half misses it, the notification stays listed in the API.
 */
const BACKOFF_MS = [30_000, 2 * 60_000, 10 * 60_000, 30 * 60_000, 60 * 60_000];

/** Queues a notification for its account's webhook, in the transaction that stores it. */
export async function queueWebhook(trx: Knex, notificationId: number, nowMs: number): Promise<void> {
  await trx('webhook_delivery').insert({ notification_id: notificationId, attempts: 0, next_at: nowMs });
}

interface Delivery {
  id: number;
  notification_id: number;
  attempts: number;
}

/**
 * Posts queued notifications to their account's webhook, on a clock of its own: a receiver that
 * stalls holds this drain only, for at most the post's short time limit, never a job slot. A
 * failed post is tried again later, backing off, a few times.
 */
export class WebhookOutbox extends Periodic {
  constructor(
    private db: Knex,
    private log: Logger,
    clock: Clock,
  ) {
    super(DRAIN_MS, (err) => log.error({ err }, 'webhook outbox'), clock);
  }

  /** @returns how many notifications were delivered. */
  protected async work(nowMs: number): Promise<number> {
    const due = await this.db<Delivery>('webhook_delivery').where('next_at', '<=', nowMs).orderBy('next_at').limit(BATCH);
    let delivered = 0;
    for (const d of due) {
      if (await this.attempt(d, nowMs)) delivered++;
    }
    return delivered;
  }

  /** One attempt; the delivery is gone afterwards unless it is to be tried again. */
  private async attempt(d: Delivery, nowMs: number): Promise<boolean> {
    const n = await getNotification(this.db, Number(d.notification_id));
    // The account may have removed its webhook meanwhile: then there is nothing to deliver.
    const url = n && (await webhookUrlOf(this.db, n.accountId));
    try {
      if (n && url) await postWebhook(url, presentNotification(n));
      await this.db('webhook_delivery').where({ id: d.id }).delete();
      return Boolean(n && url);
    } catch (err) {
      const wait = BACKOFF_MS[d.attempts];
      if (wait === undefined) {
        this.log.warn({ err: String(err), notification: n!.id }, 'notification webhook given up');
        await this.db('webhook_delivery').where({ id: d.id }).delete();
      } else {
        this.log.warn({ err: String(err), notification: n!.id, retryInMs: wait }, 'notification webhook not delivered');
        await this.db('webhook_delivery')
          .where({ id: d.id })
          .update({ attempts: d.attempts + 1, next_at: nowMs + wait });
      }
      return false;
    }
  }
}
