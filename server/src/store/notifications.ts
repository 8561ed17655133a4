import type { Knex } from 'knex';
import type { notificationKinds } from '../contracts/cockpit.ts';
import { sensorNamings } from './sensorNames.ts';

export type NotificationKind = (typeof notificationKinds)[number];

export interface Notification {
  id: number;
  accountId: number;
  kind: NotificationKind;
  /** What it is about; an account gets one notification per subject. */
  subject: string;
  message: string;
  sensorId: number | null;
  jobId: string | null;
  createdAtMs: number;
  acknowledgedAtMs: number | null;
  acknowledgedBy: number | null;
  /** Its sensor as people name it ("Home battery power"), the device that sensor belongs to and the zone its times are read in; null without a sensor. */
  sensorName: string | null;
  assetId: number | null;
  timezone: string | null;
}

export interface DbNotification {
  id: number;
  account_id: number;
  kind: NotificationKind;
  subject: string;
  message: string;
  sensor_id: number | null;
  job_id: string | null;
  created_at: number;
  acknowledged_at: number | null;
  acknowledged_by: number | null;
}

type Stored = Omit<Notification, 'sensorName' | 'assetId' | 'timezone'>;

const fromRow = (r: DbNotification): Stored => ({
  id: Number(r.id),
  accountId: Number(r.account_id),
  kind: r.kind,
  subject: r.subject,
  message: r.message,
  sensorId: r.sensor_id === null ? null : Number(r.sensor_id),
  jobId: r.job_id,
  createdAtMs: Number(r.created_at),
  acknowledgedAtMs: r.acknowledged_at === null ? null : Number(r.acknowledged_at),
  acknowledgedBy: r.acknowledged_by === null ? null : Number(r.acknowledged_by),
});

/** Notifications with their sensors named (a deleted sensor's notification keeps its text). */
async function withNames(db: Knex, list: Stored[]): Promise<Notification[]> {
  const namings = await sensorNamings(
    db,
    list.flatMap((n) => (n.sensorId === null ? [] : [n.sensorId])),
  );
  return list.map((n) => {
    const naming = n.sensorId === null ? undefined : namings.get(n.sensorId);
    return { ...n, sensorName: naming?.name ?? null, assetId: naming?.assetId ?? null, timezone: naming?.timezone ?? null };
  });
}

export type NewNotification = Pick<Notification, 'accountId' | 'kind' | 'subject' | 'message'> &
  Partial<Pick<Notification, 'sensorId' | 'jobId'>>;

export async function getNotification(db: Knex, id: number): Promise<Notification | undefined> {
  const row = await db<DbNotification>('notification').where({ id }).first();
  return row && (await withNames(db, [fromRow(row)]))[0];
}

/** @returns the account's notifications, newest first. */
export async function listNotifications(
  db: Knex,
  accountId: number,
  filter: { unacknowledgedOnly: boolean; limit: number },
): Promise<Notification[]> {
  const q = db<DbNotification>('notification').where({ account_id: accountId });
  if (filter.unacknowledgedOnly) q.whereNull('acknowledged_at');
  const rows = await q
    .orderBy([
      { column: 'created_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(filter.limit);
  return withNames(db, rows.map(fromRow));
}

/** @returns where the account's notifications are posted, if anywhere. */
export async function webhookUrlOf(db: Knex, accountId: number): Promise<string | null> {
  const row = await db<{ account_id: number; webhook_url: string | null }>('notification_setting').where({ account_id: accountId }).first();
  return row?.webhook_url ?? null;
}

/** A notification queued for its account's webhook: tried so often, due again at `next_at`. */
export interface WebhookDelivery {
  id: number;
  notification_id: number;
  attempts: number;
  next_at: number;
}

/** The `limit` deliveries due first (those due now, then those not yet due). */
export function earliestDeliveries(db: Knex, limit: number): Promise<WebhookDelivery[]> {
  return db<WebhookDelivery>('webhook_delivery').orderBy('next_at').limit(limit);
}
