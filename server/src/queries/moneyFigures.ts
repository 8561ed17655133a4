import { DateTime } from 'luxon';
import type { PartMoney, StepMoney } from './stepMoney.ts';

/** Money figures of a period, in the schedules' currency. */
export interface KpiFigures {
  /** Energy cost of the plans in force. */
  plan_cost: number;
  /** What the same steps cost doing nothing (batteries idle, EVs charging at once). */
  baseline_cost: number;
  planned_savings: number;
  /**
   * Cost of the site's measured net grid flow (its grid meters; without any, the forecast rest of
   * the site plus the devices' measured power), over the steps measured; null when none is.
   */
  realised_cost: number | null;
  /** What the measured steps cost doing nothing (the rest of the site as measured) minus their realised cost; null when none is measured. */
  realised_savings: number | null;
  steps: number;
  measured_steps: number;
  /** Steps whose plan in force for some device came from the fallback scheduler: degraded figures. */
  fallback_steps: number;
  /** Steps that had started by the time of the answer (the rest are as the plan in force now says). */
  past_steps: number;
  /** The start of the first and the end of the last measured step (ISO, the site's zone); null when none is. */
  measured_from: string | null;
  measured_to: string | null;
}

/** The figures of one part of a site over a period: a device, or the rest of the site (`sensor_id` null). */
export interface PartFigures {
  sensor_id: number | null;
  plan_cost: number;
  baseline_cost: number;
  planned_savings: number;
  realised_cost: number | null;
  realised_savings: number | null;
  /** Energy the plans in force charge or draw, and discharge or feed in (MWh, both positive). */
  planned_charged_mwh: number;
  planned_discharged_mwh: number;
  /** The same of the steps still ahead: what is planned for the rest of the period. */
  ahead_charged_mwh: number;
  ahead_discharged_mwh: number;
  /** Energy measured so far (MWh, both positive). */
  measured_charged_mwh: number;
  measured_discharged_mwh: number;
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;
const total = <T>(list: T[], f: (item: T) => number) => round6(list.reduce((sum, item) => sum + f(item), 0));
const sumParts = (parts: PartMoney[]) => ({
  plan: total(parts, (p) => p.plan),
  baseline: total(parts, (p) => p.baseline),
  realised: total(parts, (p) => p.realised ?? 0),
  realisedBaseline: total(parts, (p) => p.realisedBaseline ?? 0),
});

/** @returns the figures of these steps; `nowMs` tells the steps begun from those ahead. */
export function figures(steps: StepMoney[], nowMs: number, zone: string): KpiFigures {
  const measured = steps.filter((s) => [...s.parts.values()].every((p) => p.realised !== null));
  const of = (list: StepMoney[]) => sumParts(list.flatMap((s) => [...s.parts.values()]));
  const all = of(steps);
  const done = measured.length ? of(measured) : null;
  const iso = (ms: number) => DateTime.fromMillis(ms, { zone }).toISO();
  return {
    plan_cost: all.plan,
    baseline_cost: all.baseline,
    planned_savings: round6(all.baseline - all.plan),
    realised_cost: done && done.realised,
    realised_savings: done && round6(done.realisedBaseline - done.realised),
    steps: steps.length,
    measured_steps: measured.length,
    fallback_steps: steps.filter((s) => s.fallback).length,
    past_steps: steps.filter((s) => s.startMs < nowMs).length,
    measured_from: measured.length ? iso(measured[0].startMs) : null,
    measured_to: measured.length ? iso(measured[measured.length - 1].endMs) : null,
  };
}

/** @returns the figures of each part of the site over these steps: devices by sensor id, then the rest of the site. */
export function partFigures(steps: StepMoney[], nowMs: number): PartFigures[] {
  const keys = [...new Set(steps.flatMap((s) => [...s.parts.keys()]))].sort((a, b) => (a === null ? 1 : b === null ? -1 : a - b));
  return keys.map((key) => {
    const withPart = steps.filter((s) => s.parts.has(key));
    const parts = withPart.map((s) => s.parts.get(key)!);
    const measured = withPart.filter((s) => [...s.parts.values()].every((p) => p.realised !== null)).map((s) => s.parts.get(key)!);
    const ahead = withPart.filter((s) => s.startMs >= nowMs).map((s) => s.parts.get(key)!);
    const money = sumParts(parts);
    const done = measured.length ? sumParts(measured) : null;
    const charged = (list: PartMoney[], f: (p: PartMoney) => number | null) => total(list, (p) => Math.max(0, f(p) ?? 0));
    const discharged = (list: PartMoney[], f: (p: PartMoney) => number | null) => total(list, (p) => Math.max(0, -(f(p) ?? 0)));
    return {
      sensor_id: key,
      plan_cost: money.plan,
      baseline_cost: money.baseline,
      planned_savings: round6(money.baseline - money.plan),
      realised_cost: done && done.realised,
      realised_savings: done && round6(done.realisedBaseline - done.realised),
      planned_charged_mwh: charged(parts, (p) => p.plannedMwh),
      planned_discharged_mwh: discharged(parts, (p) => p.plannedMwh),
      ahead_charged_mwh: charged(ahead, (p) => p.plannedMwh),
      ahead_discharged_mwh: discharged(ahead, (p) => p.plannedMwh),
      measured_charged_mwh: charged(parts, (p) => p.measuredMwh),
      measured_discharged_mwh: discharged(parts, (p) => p.measuredMwh),
    };
  });
}

/** @returns the steps grouped by period (`format` of their start in `zone`), in time order. */
export function byPeriod(steps: StepMoney[], zone: string, format: string): [string, StepMoney[]][] {
  const groups = new Map<string, StepMoney[]>();
  for (const s of steps) {
    const period = DateTime.fromMillis(s.startMs, { zone }).toFormat(format);
    groups.set(period, [...(groups.get(period) ?? []), s]);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
}
