import type { Knex } from 'knex';
import { scheduleMoneyIn, type ScheduleMoney } from '../store/scheduleMoney.ts';

/**
 * Which plan counts for a step: the plan in force at it, i.e. the newest plan made (its belief
 * time) at or before the step's start. A plan made later for steps already begun or past (a
 * Compute for today at noon, a re-run of yesterday) shows what would have been planned, but never
 * replaces what the site ran on, so figures of past steps stay put. For steps still ahead the
 * newest plan made so far is the one in force, until a newer one is made before they start.
 * The money of a site, of its days and months, and of any period is counted by this one rule.
 */

/** A device's step as its plan in force has it: `plan.series.devices[device]` at step `index`. */
export interface DeviceInForce {
  sensorId: number;
  plan: ScheduleMoney;
  device: number;
  index: number;
}

/** One step of a site, with the plan in force for each of its scheduled devices. */
export interface StepInForce {
  startMs: number;
  /** The newest of the devices' plans in force, and the step's index in it: its prices and site load (without the devices) count. */
  plan: ScheduleMoney;
  index: number;
  devices: DeviceInForce[];
}

/** The first step of a plan that starts at or after `ms`. */
const firstStepFrom = (plan: ScheduleMoney, ms: number) =>
  plan.startMs + Math.max(0, Math.ceil((ms - plan.startMs) / plan.stepMs)) * plan.stepMs;

/**
 * The steps in `[startMs, endMs)` for which some device has a plan in force, in time order.
 * @param schedules plans, oldest belief time first (as the store returns them): of two plans made
 *   at the same time, the later in this order counts.
 */
export function stepsInForce(schedules: ScheduleMoney[], startMs: number, endMs: number): StepInForce[] {
  const held = new Map<string, DeviceInForce & { startMs: number }>();
  for (const plan of schedules) {
    const end = Math.min(plan.endMs, endMs);
    // Steps starting before the plan was made are not its to count.
    for (let t = firstStepFrom(plan, Math.max(startMs, plan.beliefTimeMs)); t < end; t += plan.stepMs) {
      const index = (t - plan.startMs) / plan.stepMs;
      plan.series.devices.forEach((d, device) => {
        const key = `${d.sensorId}@${t}`;
        const before = held.get(key);
        if (!before || before.plan.beliefTimeMs <= plan.beliefTimeMs)
          held.set(key, { sensorId: d.sensorId, plan, device, index, startMs: t });
      });
    }
  }
  const steps = new Map<number, StepInForce>();
  for (const { startMs: t, ...d } of held.values()) {
    const step = steps.get(t);
    if (!step) steps.set(t, { startMs: t, plan: d.plan, index: d.index, devices: [d] });
    else {
      step.devices.push(d);
      if (d.plan.beliefTimeMs > step.plan.beliefTimeMs) Object.assign(step, { plan: d.plan, index: d.index });
    }
  }
  return [...steps.values()].sort((a, b) => a.startMs - b.startMs);
}

/** The steps of these devices in `[startMs, endMs)`, each with its plans in force. */
export async function plansInForce(db: Knex, sensorIds: number[], startMs: number, endMs: number): Promise<StepInForce[]> {
  return stepsInForce(await scheduleMoneyIn(db, sensorIds, startMs, endMs), startMs, endMs);
}

/** The currency the plans in force price in: one, or null when unknown (fixed prices) or mixed. */
export function currencyInForce(steps: StepInForce[]): string | null {
  const currencies = new Set(steps.flatMap((s) => s.devices.map((d) => d.plan.currency)));
  return currencies.size === 1 ? [...currencies][0] : null;
}
