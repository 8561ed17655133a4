import type { LpBuilder } from './lpModel.ts';
import { softCapacity, softTargets, type OptionalSeries, type StorageProblem } from './storageProblem.ts';

/** The objective terms one soft constraint or commitment added: its cost is Σ cost·x. */
export interface PricedTerms {
  readonly name: string;
  readonly terms: readonly (readonly [column: number, cost: number])[];
}

/** Columns of the quantities soft constraints are stated on. */
interface Columns {
  readonly charge: readonly Int32Array[];
  readonly discharge: readonly Int32Array[];
  readonly stock: readonly Int32Array[];
}

type Terms = [number, number][];

/** A linear expression per step: Σ terms + constant. */
type Expression = (j: number) => { terms: Terms; constant: number };

/** A limit that may be breached at a price (see `addBreach`). */
interface Breach {
  readonly name: string;
  readonly side: 'above' | 'below';
  readonly limit: OptionalSeries;
  readonly expression: Expression;
  /** The price per unit of breach area at step j (price per hour times the step length). */
  readonly areaPrice: (j: number) => number;
  /** The price per unit of the highest breach of a run of steps, or null for none. */
  readonly heightPrice: ((j: number) => number) | null;
}

/**
 * A limit that may be breached at a price: per step j where `limit[j]` is given, the breach
 * e_j ≥ ±(X_j − limit_j), e_j ≥ 0, with X_j = Σ terms_j + constant_j. The breach costs
 * `areaPrice[j]` per unit (the price per hour times the step length: the breach's area) and,
 * when `heightPrice` is given, the highest breach of each run of steps with the same limit and
 * height price costs `heightPrice` per unit once more (its height): E_g ≥ e_j for j in group g.
 * All linear: the minimisation pushes e and E down onto the breach itself.
 *
 * Where a step's area is free (demand charges price only the height), e_j would be an unpriced
 * copy of the breach, so the row states the height directly, ±(X_j − limit_j) ≤ E_g: the same
 * feasible set for X and E with one column and one row fewer per step. On the 2520-step bench
 * this removes 2T of the soft model's 11T columns and 14T rows, and every solve gets cheaper.
 */
function addBreach(lp: LpBuilder, { name, side, limit, expression, areaPrice, heightPrice }: Breach): PricedTerms {
  const priced: [number, number][] = [];
  let group: { limit: number; price: number; column: number } | null = null;
  for (let j = 0; j < limit.length; j++) {
    const q = limit[j];
    if (q === null) {
      group = null;
      continue;
    }
    const { terms, constant } = expression(j);
    const area = areaPrice(j);
    let height: number | null = null;
    if (heightPrice) {
      const price = heightPrice(j);
      if (!group || group.limit !== q || group.price !== price) {
        group = { limit: q, price, column: lp.addColumn(`${name} peak[${j}]`, 0, Infinity, price) };
        if (price !== 0) priced.push([group.column, price]);
      }
      height = group.column;
    }
    // The breach is stated on e_j, or on the height E_g itself when the area is free (see above).
    const breach = area === 0 && height !== null ? height : lp.addColumn(`${name}[${j}]`, 0, Infinity, area);
    if (breach !== height && area !== 0) priced.push([breach, area]);
    // above: X − e ≤ q; below: X + e ≥ q.
    if (side === 'above') lp.addRow(`${name}[${j}]`, -Infinity, q - constant, [...terms, [breach, -1]]);
    else lp.addRow(`${name}[${j}]`, q - constant, Infinity, [...terms, [breach, 1]]);
    if (height === null || breach === height) continue;
    lp.addRow(`${name} peak[${j}]`, -Infinity, 0, [
      [breach, 1],
      [height, -1],
    ]);
  }
  return { name, terms: priced };
}

/**
 * Adds the soft constraints, demand charges and commitments of a problem to a model whose
 * columns already hold its hard part.
 *
 * - SoC minima/maxima (and targets, when both SoC breach prices are given) of each device:
 *   breaches of the end-of-step SoC, priced per MWh on the height and per MWh·h on the area.
 * - Device consumption/production capacities: breaches of the charge/discharge power.
 * - Site consumption/production capacities: breaches of the site power (devices + inflexible).
 * - Peak consumption/production: only the height of the excess over the earlier peak is priced.
 * - Commitments: the deviation of the committed flow from its baseline, X_j − q_j = e⁺_j − e⁻_j,
 *   costs up·e⁺ − down·e⁻ (convex because up ≥ down, checked before).
 *
 * @param lp the builder holding the hard part.
 * @param problem the full problem.
 * @param columns the charge, discharge and stock columns per device and step.
 * @returns the priced terms of every soft constraint and commitment that was added.
 */
export function addSoftConstraints(lp: LpBuilder, problem: StorageProblem, columns: Columns): PricedTerms[] {
  const model = modelTerms(problem, columns);
  return [
    ...problem.devices.flatMap((_, d) => deviceBreaches(lp, model, d)),
    ...siteBreaches(lp, model),
    ...(problem.commitments?.map((c) => commitmentTerms(lp, model, c)) ?? []),
  ];
}

/** The expressions soft constraints are stated on, and how their prices apply per step. */
function modelTerms(problem: StorageProblem, columns: Columns) {
  const devicePower = (devices: readonly number[], j: number): Terms =>
    devices.flatMap((d): Terms => [
      [columns.charge[d][j], 1],
      [columns.discharge[d][j], -1],
    ]);
  const all = problem.devices.map((_, d) => d);
  const site: Expression = (j) => ({ terms: devicePower(all, j), constant: problem.inflexiblePowerMw[j] });
  // A price per MW·h on the breach's area and per MW on its height.
  const priced = (price: readonly number[]) => ({
    areaPrice: (j: number) => price[j] * problem.stepHours,
    heightPrice: (j: number) => price[j],
  });
  return { problem, columns, devicePower, all, site, priced };
}

type ModelTerms = ReturnType<typeof modelTerms>;

const negated =
  (e: Expression): Expression =>
  (j) => {
    const { terms, constant } = e(j);
    return { terms: terms.map(([c, v]): [number, number] => [c, -v]), constant: -constant };
  };

/** A device's soft SoC minima and maxima (targets included where soft) and its soft power capacities. */
function deviceBreaches(lp: LpBuilder, { problem, columns, priced }: ModelTerms, d: number): PricedTerms[] {
  const device = problem.devices[d];
  const b = device.breach;
  if (!b) return [];
  const T = problem.stepCount;
  const label = device.name ?? `device ${d}`;
  const out: PricedTerms[] = [];
  const column =
    (cols: readonly Int32Array[]): Expression =>
    (j) => ({ terms: [[cols[d][j], 1]], constant: 0 });
  const targets = softTargets(device) ? device.socTargetsMwh : null;
  // A target is a minimum and a maximum at once; where both apply, the tighter one counts.
  const merged = (own: OptionalSeries | null, pick: (a: number, b: number) => number): OptionalSeries | null => {
    if (!own && !targets) return null;
    return Array.from({ length: T }, (_, j) => {
      const a = own?.[j] ?? null;
      const t = targets?.[j] ?? null;
      return a === null ? t : t === null ? a : pick(a, t);
    });
  };
  const minima = b.socMinima ? merged(device.socMinimaMwh, Math.max) : null;
  const maxima = b.socMaxima ? merged(device.socMaximaMwh, Math.min) : null;
  const soc = column(columns.stock);
  if (minima && b.socMinima)
    out.push(addBreach(lp, { name: `soc minima breach ${label}`, side: 'below', limit: minima, expression: soc, ...priced(b.socMinima) }));
  if (maxima && b.socMaxima)
    out.push(addBreach(lp, { name: `soc maxima breach ${label}`, side: 'above', limit: maxima, expression: soc, ...priced(b.socMaxima) }));
  for (const [kind, limit, price, cols] of [
    ['consumption', device.consumptionCapacityMw, b.consumption, columns.charge],
    ['production', device.productionCapacityMw, b.production, columns.discharge],
  ] as const) {
    if (!softCapacity(limit, price)) continue;
    out.push(addBreach(lp, { name: `${kind} breach ${label}`, side: 'above', limit, expression: column(cols), ...priced(price) }));
  }
  return out;
}

/** The site's soft consumption/production capacities and its peak charges. */
function siteBreaches(lp: LpBuilder, { problem, site, priced }: ModelTerms): PricedTerms[] {
  const out: PricedTerms[] = [];
  const siteBreach = problem.siteBreach;
  if (siteBreach?.consumption && problem.siteConsumptionCapacityMw) {
    const limit = problem.siteConsumptionCapacityMw;
    out.push(addBreach(lp, { name: 'consumption breach', side: 'above', limit, expression: site, ...priced(siteBreach.consumption) }));
  }
  if (siteBreach?.production && problem.siteProductionCapacityMw) {
    const limit = problem.siteProductionCapacityMw;
    out.push(
      addBreach(lp, { name: 'production breach', side: 'above', limit, expression: negated(site), ...priced(siteBreach.production) }),
    );
  }
  // A peak charge prices only the height of the excess over the earlier peak.
  const none = () => 0;
  for (const [name, peak, expression] of [
    ['consumption peak', problem.sitePeakConsumption, site],
    ['production peak', problem.sitePeakProduction, negated(site)],
  ] as const) {
    if (!peak) continue;
    const heightPrice = priced(peak.price).heightPrice;
    out.push(addBreach(lp, { name, side: 'above', limit: peak.thresholdMw, expression, areaPrice: none, heightPrice }));
  }
  return out;
}

/**
 * A commitment: the deviation of the committed flow from its baseline, X_j − q_j = e⁺_j − e⁻_j,
 * costs up·e⁺ − down·e⁻ (convex because up ≥ down, checked before).
 */
function commitmentTerms(
  lp: LpBuilder,
  { problem, devicePower, all }: ModelTerms,
  c: NonNullable<StorageProblem['commitments']>[number],
): PricedTerms {
  const priced: [number, number][] = [];
  for (let j = 0; j < problem.stepCount; j++) {
    const q = c.baselineMw[j];
    if (q === null) continue;
    const up = lp.addColumn(`${c.name} up[${j}]`, 0, Infinity, c.upPrice[j]);
    const down = lp.addColumn(`${c.name} down[${j}]`, 0, Infinity, -c.downPrice[j]);
    priced.push([up, c.upPrice[j]], [down, -c.downPrice[j]]);
    const inflexible = c.devices === null ? problem.inflexiblePowerMw[j] : 0;
    lp.addRow(`${c.name}[${j}]`, q - inflexible, q - inflexible, [...devicePower(c.devices ?? all, j), [up, -1], [down, 1]]);
  }
  return { name: c.name, terms: priced };
}
