import { isoOrNull } from '../domain/time.ts';
import type { Notification } from '../store/notifications.ts';

/** A notification as the API lists it and the webhook receives it. */
export const presentNotification = (n: Notification) => ({
  id: n.id,
  account_id: n.accountId,
  kind: n.kind,
  subject: n.subject,
  message: n.message,
  sensor_id: n.sensorId,
  sensor_name: n.sensorName,
  asset_id: n.assetId,
  timezone: n.timezone,
  job_id: n.jobId,
  created_at: isoOrNull(n.createdAtMs)!,
  acknowledged_at: isoOrNull(n.acknowledgedAtMs),
  acknowledged_by: n.acknowledgedBy,
});
