import { devicePrefix, formatEnergy, formatInstant, formatPower } from './messageFormat.ts';
import { nextSocMwh } from './socDynamics.ts';
import { siteLimitsMw, type StorageProblem } from './storageProblem.ts';

/** Longest message list returned; the rest is summarised in one line. */
const MAX_MESSAGES = 20;

/** Slack for comparing SoC values computed along different arithmetic paths (MWh). */
function slackMwh(value: number): number {
  return 1e-9 * Math.max(1, Math.abs(value));
}

/**
 * Finds constraints that cannot all hold, before any solver runs, and names them in plain words:
 * conflicting SoC bounds at the same instant, SoC requirements the device cannot reach in time
 * given its power, efficiencies, losses and the site limits, and site limits that the inflexible
 * load makes impossible to respect.
 *
 * The reachability check is exact for one device; with several devices it assumes the others
 * help as much as possible at the site connection, so it never reports a feasible problem.
 *
 * @param problem a structurally valid problem.
 * @returns human-readable messages; empty when no conflict was found.
 */
export function explainInfeasibility(problem: StorageProblem): string[] {
  const messages = [...siteConflicts(problem)];
  problem.devices.forEach((_, d) => {
    messages.push(...boundConflicts(problem, d), ...reachabilityConflicts(problem, d));
  });
  if (messages.length <= MAX_MESSAGES) return messages;
  return [...messages.slice(0, MAX_MESSAGES), `… and ${messages.length - MAX_MESSAGES} more conflicts`];
}

/** SoC bounds that contradict each other at the same instant. */
function boundConflicts(problem: StorageProblem, d: number): string[] {
  const device = problem.devices[d];
  const prefix = devicePrefix(problem, d);
  const energy = (mwh: number): string => formatEnergy(problem, mwh);
  const messages: string[] = [];
  if (device.socMinMwh > device.socMaxMwh) {
    messages.push(`${prefix}soc-min ${energy(device.socMinMwh)} is above soc-max ${energy(device.socMaxMwh)}`);
  }
  for (let j = 0; j < problem.stepCount; j++) {
    const target = device.socTargetsMwh?.[j] ?? null;
    const minimum = device.socMinimaMwh?.[j] ?? null;
    const maximum = device.socMaximaMwh?.[j] ?? null;
    // Every conflict below involves one of these; a step without them needs no instant named
    // (naming each of 192 steps took 10 ms of a first schedule in a profile at load 4).
    if (target === null && minimum === null && maximum === null) continue;
    const at = formatInstant(problem, j + 1);
    const conflict = (text: string): void => {
      messages.push(`${prefix}${text}`);
    };
    if (target !== null) {
      if (target > device.socMaxMwh) conflict(`soc-target ${energy(target)} at ${at} is above soc-max ${energy(device.socMaxMwh)}`);
      if (target < device.socMinMwh) conflict(`soc-target ${energy(target)} at ${at} is below soc-min ${energy(device.socMinMwh)}`);
      if (minimum !== null && target < minimum)
        conflict(`soc-target ${energy(target)} at ${at} is below soc-minima ${energy(minimum)} at the same time`);
      if (maximum !== null && target > maximum)
        conflict(`soc-target ${energy(target)} at ${at} is above soc-maxima ${energy(maximum)} at the same time`);
    }
    if (minimum !== null && minimum > device.socMaxMwh)
      conflict(`soc-minima ${energy(minimum)} at ${at} is above soc-max ${energy(device.socMaxMwh)}`);
    if (maximum !== null && maximum < device.socMinMwh)
      conflict(`soc-maxima ${energy(maximum)} at ${at} is below soc-min ${energy(device.socMinMwh)}`);
    if (minimum !== null && maximum !== null && minimum > maximum) {
      conflict(`soc-minima ${energy(minimum)} at ${at} is above soc-maxima ${energy(maximum)} at the same time`);
    }
  }
  return messages;
}

/** Steps where no device power can keep the site within its limits, grouped into runs. */
function siteConflicts(problem: StorageProblem): string[] {
  const messages: string[] = [];
  const power = (mw: number): string => formatPower(problem, mw);
  type Excess = { kind: 'consumption' | 'production'; excessMw: number; limitMw: number; inflexibleMw: number; helpMw: number };
  const excessAt = (j: number): Excess | null => {
    const { consumptionMw, productionMw } = siteLimitsMw(problem, j);
    const inflexible = problem.inflexiblePowerMw[j];
    const mostProductionMw = problem.devices.reduce((sum, device) => sum + device.productionCapacityMw[j], 0);
    const mostConsumptionMw = problem.devices.reduce((sum, device) => sum + device.consumptionCapacityMw[j], 0);
    const lowestSiteMw = inflexible - mostProductionMw;
    const highestSiteMw = inflexible + mostConsumptionMw;
    if (lowestSiteMw > consumptionMw + 1e-9) {
      return {
        kind: 'consumption',
        excessMw: lowestSiteMw - consumptionMw,
        limitMw: consumptionMw,
        inflexibleMw: inflexible,
        helpMw: mostProductionMw,
      };
    }
    if (highestSiteMw < -productionMw - 1e-9) {
      return {
        kind: 'production',
        excessMw: -productionMw - highestSiteMw,
        limitMw: productionMw,
        inflexibleMw: -inflexible,
        helpMw: mostConsumptionMw,
      };
    }
    return null;
  };
  let j = 0;
  while (j < problem.stepCount) {
    const first = excessAt(j);
    if (first === null) {
      j++;
      continue;
    }
    // Extend the run while the same limit is violated; report its worst step.
    let worst = first;
    let end = j + 1;
    for (let next = excessAt(end); next !== null && next.kind === first.kind; next = excessAt(end)) {
      if (next.excessMw > worst.excessMw) worst = next;
      end++;
    }
    const when =
      end === j + 1 ? `at ${formatInstant(problem, j)}` : `from ${formatInstant(problem, j)} until ${formatInstant(problem, end)}`;
    messages.push(
      worst.kind === 'consumption'
        ? `site consumption capacity ${power(worst.limitMw)} cannot be respected ${when}: the inflexible load of ${power(worst.inflexibleMw)} can be offset by at most ${power(worst.helpMw)} of storage discharging`
        : `site production capacity ${power(worst.limitMw)} cannot be respected ${when}: the inflexible production of ${power(worst.inflexibleMw)} can be absorbed by at most ${power(worst.helpMw)} of storage charging`,
    );
    j = end;
  }
  return messages;
}

/** Where a reachable SoC bound was last pinned: the start, or a constraint it ran into. */
interface Origin {
  readonly boundary: number;
  readonly socMwh: number;
  readonly label: string | null;
  /** Extreme power magnitudes (MW) used since the origin, for the message. */
  mostPowerMw: number;
  leastPowerMw: number;
}

/**
 * Follows the interval of SoC values the device can reach step by step, clipped by its SoC bounds,
 * and reports every requirement that falls outside it.
 */
function reachabilityConflicts(problem: StorageProblem, d: number): string[] {
  const device = problem.devices[d];
  const prefix = devicePrefix(problem, d);
  const energy = (mwh: number): string => formatEnergy(problem, mwh);
  const messages: string[] = [];
  const start = (): Origin => ({ boundary: 0, socMwh: device.socAtStartMwh, label: null, mostPowerMw: 0, leastPowerMw: Infinity });
  let low = device.socAtStartMwh;
  let high = device.socAtStartMwh;
  let lowOrigin = start();
  let highOrigin = start();

  const from = (origin: Origin): string => {
    const power = formatPower(problem, origin.mostPowerMw);
    const how = origin.leastPowerMw < origin.mostPowerMw - 1e-12 ? `at up to ${power}` : `at ${power}`;
    const where = origin.label === null ? '' : ` (${origin.label} at ${formatInstant(problem, origin.boundary)})`;
    return `from ${energy(origin.socMwh)}${where} ${how}`;
  };

  for (let j = 0; j < problem.stepCount; j++) {
    const [leastPowerMw, mostPowerMw] = devicePowerRangeMw(problem, d, j);
    highOrigin.mostPowerMw = Math.max(highOrigin.mostPowerMw, Math.max(0, mostPowerMw));
    highOrigin.leastPowerMw = Math.min(highOrigin.leastPowerMw, Math.max(0, mostPowerMw));
    lowOrigin.mostPowerMw = Math.max(lowOrigin.mostPowerMw, Math.max(0, -leastPowerMw));
    lowOrigin.leastPowerMw = Math.min(lowOrigin.leastPowerMw, Math.max(0, -leastPowerMw));
    const reachLow = nextSocMwh(device, j, low, leastPowerMw, problem.stepHours);
    const reachHigh = nextSocMwh(device, j, high, mostPowerMw, problem.stepHours);

    const lower = requirementAt(problem, d, j, 'lower');
    const upper = requirementAt(problem, d, j, 'upper');
    const at = formatInstant(problem, j + 1);
    if (lower.socMwh > upper.socMwh) {
      // Already reported as a bound conflict; keep following the device unconstrained.
      low = reachLow;
      high = reachHigh;
      continue;
    }
    if (lower.socMwh > reachHigh + slackMwh(lower.socMwh)) {
      messages.push(
        `${prefix}${lower.label} ${energy(lower.socMwh)} at ${at} cannot be reached: at most ${energy(reachHigh)} is reachable by then ${from(highOrigin)}`,
      );
    } else if (upper.socMwh < reachLow - slackMwh(upper.socMwh)) {
      const verb = upper.label === 'soc-target' ? 'reached' : 'respected';
      messages.push(
        `${prefix}${upper.label} ${energy(upper.socMwh)} at ${at} cannot be ${verb}: at least ${energy(reachLow)} remains by then ${from(lowOrigin)}`,
      );
    } else {
      low = Math.max(reachLow, lower.socMwh);
      high = Math.min(reachHigh, upper.socMwh);
      if (lower.socMwh > reachLow)
        lowOrigin = { boundary: j + 1, socMwh: lower.socMwh, label: lower.label, mostPowerMw: 0, leastPowerMw: Infinity };
      if (upper.socMwh < reachHigh)
        highOrigin = { boundary: j + 1, socMwh: upper.socMwh, label: upper.label, mostPowerMw: 0, leastPowerMw: Infinity };
      continue;
    }
    // After a conflict, continue from the requirement itself so later, independent conflicts still show.
    low = lower.socMwh;
    high = upper.socMwh;
    lowOrigin = { boundary: j + 1, socMwh: low, label: lower.label, mostPowerMw: 0, leastPowerMw: Infinity };
    highOrigin = { boundary: j + 1, socMwh: high, label: upper.label, mostPowerMw: 0, leastPowerMw: Infinity };
  }
  return messages;
}

/**
 * The binding SoC requirement at the end of a step, with the name of the field it comes from.
 * Ties go to the most specific field (target, then minima/maxima, then soc-min/soc-max).
 */
function requirementAt(problem: StorageProblem, d: number, j: number, side: 'lower' | 'upper'): { socMwh: number; label: string } {
  const device = problem.devices[d];
  const target = device.socTargetsMwh?.[j] ?? null;
  if (side === 'lower') {
    const minimum = device.socMinimaMwh?.[j] ?? null;
    let best = { socMwh: device.socMinMwh, label: 'soc-min' };
    if (minimum !== null && minimum >= best.socMwh) best = { socMwh: minimum, label: 'soc-minima' };
    if (target !== null && target >= best.socMwh) best = { socMwh: target, label: 'soc-target' };
    return best;
  }
  const maximum = device.socMaximaMwh?.[j] ?? null;
  let best = { socMwh: device.socMaxMwh, label: 'soc-max' };
  if (maximum !== null && maximum <= best.socMwh) best = { socMwh: maximum, label: 'soc-maxima' };
  if (target !== null && target <= best.socMwh) best = { socMwh: target, label: 'soc-target' };
  return best;
}

/**
 * Power range of one device at one step, narrowed by the site limits under the most favourable
 * assumption about the other devices (they produce or consume as much as needed to make room).
 *
 * @param problem the problem.
 * @param d the device index.
 * @param j the step index.
 * @returns [least, most] device power (MW, charging positive); least > most means the site limits
 *   cannot be respected at this step at all.
 */
export function devicePowerRangeMw(problem: StorageProblem, d: number, j: number): [number, number] {
  const device = problem.devices[d];
  const { consumptionMw, productionMw } = siteLimitsMw(problem, j);
  let othersConsumptionMw = 0;
  let othersProductionMw = 0;
  problem.devices.forEach((other, e) => {
    if (e === d) return;
    othersConsumptionMw += other.consumptionCapacityMw[j];
    othersProductionMw += other.productionCapacityMw[j];
  });
  const inflexible = problem.inflexiblePowerMw[j];
  const most = Math.min(device.consumptionCapacityMw[j], consumptionMw - inflexible + othersProductionMw);
  const least = Math.max(-device.productionCapacityMw[j], -productionMw - inflexible - othersConsumptionMw);
  return least <= most ? [least, most] : [most, least];
}

/** Constraint families that can be lifted one at a time to locate the cause of an infeasible model. */
const FAMILIES: readonly { name: string; lift: (problem: StorageProblem) => StorageProblem }[] = [
  {
    name: 'the site consumption/production capacities',
    lift: (p) => ({ ...p, siteConsumptionCapacityMw: null, siteProductionCapacityMw: null }),
  },
  { name: 'the soc-targets', lift: (p) => ({ ...p, devices: p.devices.map((d) => ({ ...d, socTargetsMwh: null })) }) },
  { name: 'the soc-minima', lift: (p) => ({ ...p, devices: p.devices.map((d) => ({ ...d, socMinimaMwh: null })) }) },
  { name: 'the soc-maxima', lift: (p) => ({ ...p, devices: p.devices.map((d) => ({ ...d, socMaximaMwh: null })) }) },
  {
    name: 'soc-min and soc-max',
    lift: (p) => ({ ...p, devices: p.devices.map((d) => ({ ...d, socMinMwh: -Infinity, socMaxMwh: Infinity })) }),
  },
];

/**
 * Explains an infeasibility the solver found although the checks before solving passed
 * (typically several devices competing for one site connection): lifts one constraint family at
 * a time and reports which lifts make the problem feasible.
 *
 * @param problem the infeasible problem.
 * @param isFeasible answers whether the LP relaxation (no binaries) of a problem is feasible.
 * @returns human-readable messages.
 */
export async function explainSolverInfeasibility(
  problem: StorageProblem,
  isFeasible: (problem: StorageProblem) => Promise<boolean>,
): Promise<string[]> {
  // Prices and tie-breaker are irrelevant to feasibility; dropping them keeps the probes simple.
  const probe: StorageProblem = {
    ...problem,
    preferChargingSooner: false,
    consumptionPrice: problem.consumptionPrice.map(() => 0),
    productionPrice: null,
  };
  if (await isFeasible(probe)) {
    return ['the constraints can only be met by charging and discharging a device in the same step, which is not allowed'];
  }
  const culprits: string[] = [];
  for (const family of FAMILIES) {
    if (await isFeasible(family.lift(probe))) culprits.push(family.name);
  }
  if (culprits.length === 0) {
    return [
      `no schedule satisfies all constraints, and lifting any single family of them (${FAMILIES.map((f) => f.name).join(', ')}) does not help`,
    ];
  }
  return culprits.map(
    (name) =>
      `no schedule satisfies all constraints; without ${name} one would exist, so ${name} conflict with the rest (power limits, inflexible load, other SoC constraints)`,
  );
}
