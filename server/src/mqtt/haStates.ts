import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import type { SocConstraintSpec } from '../contracts/jobSpec.ts';
import { assetKpis } from '../queries/assetKpis.ts';
import { latestSchedule, newestScheduleStatus } from '../store/mqttLinks.ts';
import type { MONEY_STATES, PLAN_STATES } from './discovery.ts';
import type { Setpoint } from './setpoints.ts';

/**
 * The states Home Assistant's entities show (see discovery.ts), as MQTT payloads. HA shows the
 * payload `None` of a sensor as unknown: a device with no SoC plan or no target ahead, a site
 * without measured steps today.
 */
const NONE = 'None';

const kWh = (mwh: number) => String(Math.round(mwh * 1e6) / 1e3);

/** When a target binds: its instant, or the start of its window. */
const targetAt = (t: SocConstraintSpec) => ('atMs' in t ? t.atMs : t.startMs);

/**
 * A device's plan as HA shows it at `nowMs`: the planned SoC at the end of the current step (only
 * while the plan is followed: not once it is stale or has ended), the next SoC target of that
 * plan, and the status of the scheduling job last asked for (`fallback` for one the fallback
 * scheduler stood in for: a degraded plan is never shown as a plain `finished`).
 */
export async function planStates(
  db: Knex,
  sensorId: number,
  setpoint: Setpoint,
  nowMs: number,
): Promise<Record<(typeof PLAN_STATES)[number], string>> {
  const soc = (await latestSchedule(db, sensorId))?.soc;
  const followed = setpoint.status === 'ok' || setpoint.status === 'fallback';
  const nextSoc = followed && soc ? soc.socMwh[Math.floor((nowMs - soc.startMs) / soc.stepMs) + 1] : undefined;
  const target = soc?.targets.filter((t) => targetAt(t) > nowMs).sort((a, b) => targetAt(a) - targetAt(b))[0];
  const job = await newestScheduleStatus(db, sensorId);
  return {
    next_soc: nextSoc === undefined ? NONE : kWh(nextSoc),
    next_target: target ? kWh(target.valueMwh) : NONE,
    next_target_time: target ? new Date(targetAt(target)).toISOString() : NONE,
    job_status: job ?? 'none',
  };
}

/**
 * The money of a site's plans today (in `zone`): planned cost, planned savings against doing
 * nothing, and the savings of the steps measured so far.
 * @returns the states and their currency (null when unknown or mixed).
 */
export async function moneyStates(
  db: Knex,
  siteId: number,
  zone: string,
  nowMs: number,
): Promise<{ currency: string | null; states: Record<(typeof MONEY_STATES)[number], string> }> {
  const day = DateTime.fromMillis(nowMs, { zone }).startOf('day');
  const kpis = await assetKpis(db, siteId, { startMs: day.toMillis(), endMs: day.plus({ days: 1 }).toMillis(), nowMs });
  const { total } = kpis;
  const amount = (v: number | null) => (v === null || !total.steps ? NONE : String(v));
  return {
    currency: kpis.currency,
    states: {
      planned_cost_today: amount(total.plan_cost),
      planned_savings_today: amount(total.planned_savings),
      realised_savings_today: amount(total.realised_savings),
    },
  };
}
