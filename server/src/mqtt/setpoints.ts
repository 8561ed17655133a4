import type { Knex } from 'knex';
import { conversion } from '../domain/units.ts';
import { consumptionSign } from '../scheduling/buildProblem.ts';
import { mostRecentBeliefs } from '../store/beliefs.ts';
import { latestSchedule, type MqttLink } from '../store/mqttLinks.ts';
import { recordSetpoint } from '../store/write/mqttLinks.ts';
import { getSensor } from '../store/sensors.ts';

/** Why a device gets the setpoint it gets: the plan's, or the link's safe one and the reason. */
export type SetpointStatus = 'ok' | 'no plan' | 'stale plan' | 'fallback';

const DAY_MS = 86_400_000;

/** What an out-link's device is told at one moment. */
export interface Setpoint {
  /** Identifies what was sent: a new step, plan or status sends again. */
  key: string;
  status: SetpointStatus;
  value: number;
  plan: { start: string; value: number }[];
  jobId: string | null;
  /** When the next step begins. */
  nextStepMs: number;
}

/**
 * The setpoint of an out-link at `nowMs`: the current step of the sensor's newest plan, in the
 * link's unit and sign (consumption positive unless inverted), with the plan's next 24 hours. A
 * plan older than the link's limit, or one that has no value for the current step (it ended), gives
 * the link's safe setpoint and says why; a fallback plan is sent but says it is one.
 */
export async function currentSetpoint(db: Knex, link: MqttLink, nowMs: number): Promise<Setpoint | undefined> {
  const sensor = await getSensor(db, link.sensorId);
  const step = sensor?.event_resolution_ms;
  const c = sensor && conversion(sensor.unit, link.unit, sensor.event_resolution_ms);
  if (!sensor || !step || !c) return undefined;
  const stepStart = Math.floor(nowMs / step) * step;
  const safe = (status: SetpointStatus, jobId: string | null): Setpoint => ({
    key: `${stepStart}/${status}/${jobId}`,
    status,
    value: link.safeSetpoint ?? 0,
    plan: [],
    jobId,
    nextStepMs: stepStart + step,
  });
  const job = await latestSchedule(db, sensor.id);
  if (!job) return safe('no plan', null);
  if (nowMs - job.finishedAt > (link.staleAfterMs ?? Infinity)) return safe('stale plan', job.jobId);
  const beliefs = await mostRecentBeliefs(db, {
    sensorId: sensor.id,
    startMs: stepStart,
    endMs: stepStart + DAY_MS,
    sourceIds: [job.dataSourceId],
  });
  const sign = consumptionSign(sensor) * (link.inverted ? -1 : 1);
  const inLinkUnit = (v: number) => Math.round(((sign * v * c.scale + c.offset) / link.scale) * 1e6) / 1e6;
  const plan = beliefs.map((b) => ({ start: new Date(b.eventStartMs).toISOString(), value: inLinkUnit(b.value) }));
  const current = beliefs.find((b) => b.eventStartMs === stepStart);
  if (!current) return safe('no plan', job.jobId);
  const status = job.fallback ? 'fallback' : 'ok';
  const key = `${stepStart}/${status}/${job.jobId}`;
  return { key, status, value: inLinkUnit(current.value), plan, jobId: job.jobId, nextStepMs: stepStart + step };
}

/** Publishes at QoS 1, retained, resolving once the broker has it. */
export type Publish = (topic: string, payload: string) => Promise<void>;

/** Sends a setpoint on the link's topics (`…/setpoint`, `…/plan`, `…/status`) and records it. */
export async function sendSetpoint(db: Knex, link: MqttLink, s: Setpoint, nowMs: number, publish: Publish): Promise<void> {
  const topic = `${link.topic}/setpoint`;
  await publish(`${link.topic}/plan`, JSON.stringify(s.plan));
  await publish(`${link.topic}/status`, s.status);
  await publish(topic, String(s.value));
  await recordSetpoint(db, { linkId: link.id, sentAt: nowMs, topic, value: s.value, status: s.status, jobId: s.jobId });
}
