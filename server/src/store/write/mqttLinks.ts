import type { Knex } from 'knex';
import type { Reading } from '../../domain/mqtt.ts';
import type { Writer } from '../auditLog.ts';
import { getMqttLink, linkUsername, settingColumns, type MessageTally, type MqttLink, type NewMqttLink } from '../mqttLinks.ts';
import { recordAudit } from './auditLog.ts';

/** The sensor a link feeds or follows, whose asset its audit entry is about. */
type OnSensor = { id: number; generic_asset_id: number; account_id: number | null };

const about = (sensor: OnSensor) => ({ assetId: sensor.generic_asset_id, accountId: sensor.account_id });

/** Adds a link to a sensor and records it; its username follows from its id. */
export async function createMqttLink(trx: Knex.Transaction, by: Writer, made: { sensor: OnSensor; link: NewMqttLink }): Promise<MqttLink> {
  const { sensor, link } = made;
  const [row] = await trx('mqtt_link')
    .insert({
      ...settingColumns(link),
      owner_id: link.ownerId,
      stale_after_ms: link.staleAfterMs,
      // Unique until the id is known.
      username: `new-${link.passwordHash.slice(0, 32)}`,
      password_hash: link.passwordHash,
      created_at: link.createdAt,
    })
    .returning('id');
  const id = Number((row as { id: number }).id);
  const topic = link.direction === 'out' ? `flexsite/${linkUsername(id)}` : link.topic;
  await trx('mqtt_link')
    .where({ id })
    .update({ username: linkUsername(id), topic });
  await recordAudit(trx, by, about(sensor), `Created MQTT link '${link.name}' (${link.direction}, ${topic}) for sensor ${sensor.id}`);
  return (await getMqttLink(trx, id))!;
}

/** Removes a link (its buffered readings and setpoint record go with it) and records it. */
export async function deleteMqttLink(trx: Knex.Transaction, by: Writer, gone: { sensor: OnSensor; link: MqttLink }): Promise<void> {
  const { sensor, link } = gone;
  await trx('mqtt_link').where({ id: link.id }).delete();
  await recordAudit(trx, by, about(sensor), `Deleted MQTT link '${link.name}' (${link.direction}, ${link.topic}) of sensor ${sensor.id}`);
}

/**
 * Buffers a reading until its interval closes; a second reading of the same link and instant
 * (a repeated message) is left out.
 * @returns whether it was new.
 */
export async function bufferReading(db: Knex, linkId: number, reading: Reading): Promise<boolean> {
  const inserted = await db('mqtt_reading')
    .insert({ link_id: linkId, time_ms: reading.timeMs, value: reading.value })
    .onConflict(['link_id', 'time_ms'])
    .ignore()
    .returning('link_id');
  return inserted.length > 0;
}

/** Where a link's readings are closed: everything before `untilMs`; the readings before `keepFromMs` go (the one carrying into the next interval stays). */
export interface ReadingsClose {
  linkId: number;
  untilMs: number;
  keepFromMs: number;
}

/** Closes the readings of several links in one transaction: the intervals that close at one tick close together. */
export async function closeReadings(db: Knex, closes: readonly ReadingsClose[]): Promise<void> {
  await db.transaction(async (trx) => {
    for (const c of closes) {
      await trx('mqtt_link').where({ id: c.linkId }).update({ closed_until_ms: c.untilMs });
      await trx('mqtt_reading').where({ link_id: c.linkId }).where('time_ms', '<', c.keepFromMs).delete();
    }
  });
}

export async function recordTally(db: Knex, linkId: number, t: MessageTally): Promise<void> {
  await db('mqtt_link')
    .where({ id: linkId })
    .update({
      message_count: db.raw('message_count + ?', [t.messages]),
      malformed_count: db.raw('malformed_count + ?', [t.malformed]),
      late_count: db.raw('late_count + ?', [t.late]),
      ...(t.lastMessageAt !== undefined && { last_message_at: t.lastMessageAt }),
      ...(t.lastMalformedAt !== undefined && { last_malformed_at: t.lastMalformedAt }),
      ...(t.lastValue !== undefined && { last_value: t.lastValue }),
      ...(t.lastProblem !== undefined && { last_problem: t.lastProblem.slice(0, 500) }),
    });
}

/** Records a setpoint sent. */
export async function recordSetpoint(
  db: Knex,
  s: { linkId: number; sentAt: number; topic: string; value: number; status: string; jobId: string | null },
): Promise<void> {
  await db('mqtt_setpoint').insert({
    link_id: s.linkId,
    sent_at: s.sentAt,
    topic: s.topic,
    value: s.value,
    status: s.status,
    job_id: s.jobId,
  });
}
