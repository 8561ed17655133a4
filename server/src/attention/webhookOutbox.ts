import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { Periodic } from '../periodic.ts';
import { presentNotification } from '../presenters/notifications.ts';
import { earliestDeliveries, getNotification, webhookUrlOf, type WebhookDelivery } from '../store/notifications.ts';
import { dropDelivery, retryDelivery } from '../store/write/notifications.ts';
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
/**
 * How long a drain that found nothing due lets the outbox rest, short of a wake-up or the next
 * retry: this process wakes it when it queues a delivery; one queued by another process sharing
 * the store is seen within this time.
 */
const REST_MS = 60_000;

/**
 * Posts queued notifications to their account's webhook, on a clock of its own: a receiver that
 * stalls holds this drain only, for at most the post's short time limit, never a job slot. A
 * failed post is tried again later, backing off, a few times.
 */
export class WebhookOutbox extends Periodic {
  /** Nothing is due from `fromMs` until before `untilMs` (a simulated week would otherwise look 120,000 times). */
  private rest = { fromMs: Infinity, untilMs: -Infinity };

  constructor(
    private db: Knex,
    private log: Logger,
    clock: Clock,
  ) {
    super(DRAIN_MS, (err) => log.error({ err }, 'webhook outbox'), clock);
  }

  /** @returns how many notifications were delivered. */
  protected async work(nowMs: number): Promise<number> {
    if (this.rest.fromMs <= nowMs && nowMs < this.rest.untilMs) return 0;
    // The earliest deliveries: those due now, then the next one not yet due.
    const earliest = await earliestDeliveries(this.db, BATCH);
    const due = earliest.filter((d) => Number(d.next_at) <= nowMs);
    const next = earliest.find((d) => Number(d.next_at) > nowMs);
    // After attempts (which may retry later) the next drain looks again.
    this.rest = due.length
      ? { fromMs: Infinity, untilMs: -Infinity }
      : { fromMs: nowMs, untilMs: Math.min(nowMs + REST_MS, next ? Number(next.next_at) : Infinity) };
    let delivered = 0;
    for (const d of due) {
      if (await this.attempt(d, nowMs)) delivered++;
    }
    return delivered;
  }

  /** A delivery was queued: the next drain looks for it. */
  wake(): void {
    this.rest = { fromMs: Infinity, untilMs: -Infinity };
  }

  /** One attempt; the delivery is gone afterwards unless it is to be tried again. */
  private async attempt(d: WebhookDelivery, nowMs: number): Promise<boolean> {
    const n = await getNotification(this.db, Number(d.notification_id));
    // The account may have removed its webhook meanwhile: then there is nothing to deliver.
    const url = n && (await webhookUrlOf(this.db, n.accountId));
    try {
      if (n && url) await postWebhook(url, presentNotification(n));
      await dropDelivery(this.db, d.id);
      return Boolean(n && url);
    } catch (err) {
      const wait = BACKOFF_MS[d.attempts];
      if (wait === undefined) {
        this.log.warn({ err: String(err), notification: n!.id }, 'notification webhook given up');
        await dropDelivery(this.db, d.id);
      } else {
        this.log.warn({ err: String(err), notification: n!.id, retryInMs: wait }, 'notification webhook not delivered');
        await retryDelivery(this.db, d.id, d.attempts + 1, nowMs + wait);
      }
      return false;
    }
  }
}
