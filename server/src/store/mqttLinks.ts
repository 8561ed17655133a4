import type { Knex } from 'knex';
import type { SocConstraintSpec } from '../contracts/jobSpec.ts';
import type { Reading } from '../domain/mqtt.ts';
import { numberOrNull, textOrNull } from './columns.ts';

/** A device link as stored. */
export interface MqttLink {
  id: number;
  sensorId: number;
  ownerId: number | null;
  name: string;
  direction: 'in' | 'out';
  topic: string;
  valuePath: string | null;
  timePath: string | null;
  unit: string;
  scale: number;
  inverted: boolean;
  safeSetpoint: number | null;
  staleAfterMs: number | null;
  username: string;
  passwordHash: string;
  createdAt: number;
  closedUntilMs: number | null;
  lastMessageAt: number | null;
  lastValue: number | null;
  messageCount: number;
  malformedCount: number;
  lateCount: number;
  lastProblem: string | null;
}

export type NewMqttLink = Omit<
  MqttLink,
  'id' | 'username' | 'closedUntilMs' | 'lastMessageAt' | 'lastValue' | 'messageCount' | 'malformedCount' | 'lateCount' | 'lastProblem'
>;

function fromRow(r: Record<string, unknown>): MqttLink {
  return {
    id: Number(r.id),
    sensorId: Number(r.sensor_id),
    ownerId: numberOrNull(r.owner_id),
    name: String(r.name),
    direction: r.direction === 'out' ? 'out' : 'in',
    topic: String(r.topic),
    valuePath: textOrNull(r.value_path),
    timePath: textOrNull(r.time_path),
    unit: String(r.unit),
    scale: Number(r.scale),
    inverted: Boolean(r.inverted),
    safeSetpoint: numberOrNull(r.safe_setpoint),
    staleAfterMs: numberOrNull(r.stale_after_ms),
    username: String(r.username),
    passwordHash: String(r.password_hash),
    createdAt: Number(r.created_at),
    closedUntilMs: numberOrNull(r.closed_until_ms),
    lastMessageAt: numberOrNull(r.last_message_at),
    lastValue: numberOrNull(r.last_value),
    messageCount: Number(r.message_count),
    malformedCount: Number(r.malformed_count),
    lateCount: Number(r.late_count),
    lastProblem: textOrNull(r.last_problem),
  };
}

/** What a device link is set to, under the names of its columns, which the API's answers use too. */
export const settingColumns = (link: NewMqttLink) => ({
  sensor_id: link.sensorId,
  name: link.name,
  direction: link.direction,
  topic: link.topic,
  value_path: link.valuePath,
  time_path: link.timePath,
  unit: link.unit,
  scale: link.scale,
  inverted: link.inverted,
  safe_setpoint: link.safeSetpoint,
});

/** The username of a link: derived from its id, so that it never repeats. */
export const linkUsername = (id: number) => `link-${id}`;

export async function getMqttLink(db: Knex, id: number): Promise<MqttLink | undefined> {
  const row = await db('mqtt_link').where({ id }).first();
  return row ? fromRow(row) : undefined;
}

/** Links of one sensor, of the sensors of some assets, or all of them (the broker bridge), oldest first. */
export async function listMqttLinks(db: Knex, where: { sensorId?: number; assetIds?: number[] } = {}): Promise<MqttLink[]> {
  const q = db('mqtt_link').orderBy('id');
  if (where.sensorId !== undefined) q.where('sensor_id', where.sensorId);
  if (where.assetIds) q.whereIn('sensor_id', db('sensor').whereIn('generic_asset_id', where.assetIds).select('id'));
  return (await q).map(fromRow);
}

/** The in-links of other accounts than `accountId` (null: public), with their topics. */
export async function foreignInLinks(db: Knex, accountId: number | null): Promise<{ id: number; topic: string }[]> {
  const q = db('mqtt_link as l')
    .join('sensor as s', 's.id', 'l.sensor_id')
    .join('generic_asset as a', 'a.id', 's.generic_asset_id')
    .where('l.direction', 'in')
    .select('l.id', 'l.topic');
  if (accountId === null) q.whereNotNull('a.account_id');
  else q.where((w) => w.whereNull('a.account_id').orWhereNot('a.account_id', accountId));
  return (await q).map((r: { id: number; topic: string }) => ({ id: Number(r.id), topic: r.topic }));
}

/** The buffered readings of a link, in time order. */
export async function bufferedReadings(db: Knex, linkId: number): Promise<Reading[]> {
  const rows = await db('mqtt_reading').where({ link_id: linkId }).orderBy('time_ms');
  return rows.map((r: { time_ms: number; value: number }) => ({ timeMs: Number(r.time_ms), value: Number(r.value) }));
}

/** What a link's messages did since the last call: counted, for the link's status and the sensor's data health. */
export interface MessageTally {
  messages: number;
  malformed: number;
  late: number;
  lastMessageAt?: number;
  lastMalformedAt?: number;
  lastValue?: number;
  lastProblem?: string;
}

/** The malformed messages of the device links feeding a sensor: how many, and when the last came. */
export interface MalformedMessages {
  count: number;
  lastAtMs: number | null;
}

/** @returns per sensor of `sensorIds` fed by an in-link, its links' malformed messages together. */
export async function malformedBySensor(db: Knex, sensorIds: number[]): Promise<Map<number, MalformedMessages>> {
  const rows = await db('mqtt_link')
    .whereIn('sensor_id', sensorIds)
    .where('direction', 'in')
    .groupBy('sensor_id')
    .select('sensor_id', db.raw('sum(malformed_count) as n'), db.raw('max(last_malformed_at) as at'));
  return new Map(
    rows.map((r: { sensor_id: number; n: number; at: number | null }) => [
      Number(r.sensor_id),
      { count: Number(r.n), lastAtMs: r.at === null ? null : Number(r.at) },
    ]),
  );
}

/** The setpoints sent to a link, oldest first. */
export async function sentSetpoints(
  db: Knex,
  linkId: number,
): Promise<{ sentAt: number; topic: string; value: number; status: string; jobId: string | null }[]> {
  const rows = await db('mqtt_setpoint').where({ link_id: linkId }).orderBy('id');
  return rows.map((r: Record<string, unknown>) => ({
    sentAt: Number(r.sent_at),
    topic: String(r.topic),
    value: Number(r.value),
    status: String(r.status),
    jobId: textOrNull(r.job_id),
  }));
}

/** The newest finished scheduling job of a sensor: the plan an out-link sends. */
export interface FinishedSchedule {
  jobId: string;
  finishedAt: number;
  dataSourceId: number;
  fallback: boolean;
  /** The sensor's SoC plan (MWh at each step boundary from `startMs`) and its targets; absent for a device with none. */
  soc?: { startMs: number; stepMs: number; socMwh: number[]; targets: SocConstraintSpec[] };
}

interface StoredResult {
  data_source_id?: number;
  start_ms?: number;
  step_ms?: number;
  devices?: { sensor_id: number; soc_mwh?: number[]; soc_targets?: SocConstraintSpec[] }[];
}

export async function latestSchedule(db: Knex, sensorId: number): Promise<FinishedSchedule | undefined> {
  const row = await db('job')
    .where({ sensor_id: sensorId, queue: 'scheduling', status: 'finished' })
    .orderBy('finished_at', 'desc')
    .first('id', 'finished_at', 'args', 'result');
  if (!row?.result) return undefined;
  const result = JSON.parse(String(row.result)) as StoredResult;
  if (typeof result.data_source_id !== 'number') return undefined;
  const args = JSON.parse(String(row.args)) as { fallback?: boolean };
  const device = result.devices?.find((d) => d.sensor_id === sensorId);
  return {
    jobId: String(row.id),
    finishedAt: Number(row.finished_at),
    dataSourceId: result.data_source_id,
    fallback: args.fallback === true,
    ...(device?.soc_mwh &&
      result.start_ms !== undefined &&
      result.step_ms !== undefined && {
        soc: { startMs: result.start_ms, stepMs: result.step_ms, socMwh: device.soc_mwh, targets: device.soc_targets ?? [] },
      }),
  };
}

/**
 * The status of the scheduling job last asked for a sensor (queued, started, finished, failed);
 * for one that fell back (infeasible), its fallback job's, which made the plan: `fallback` once
 * that one has finished.
 */
export async function newestScheduleStatus(db: Knex, sensorId: number): Promise<string | undefined> {
  const row = await db('job as j')
    .where({ 'j.sensor_id': sensorId, 'j.queue': 'scheduling' })
    // A fallback job is no job anybody asked for: it answers for the one that fell back.
    .whereNotExists(db('job as o').whereRaw('o.fallback_job_id = j.id'))
    .orderBy('j.created_at', 'desc')
    .first('j.status', 'j.fallback_job_id');
  if (!row) return undefined;
  if (!row.fallback_job_id) return String(row.status);
  const fallback = await db('job').where({ id: row.fallback_job_id }).first('status');
  return fallback?.status === 'finished' ? 'fallback' : String(fallback?.status ?? row.status);
}
