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
function addBreach(
  lp: LpBuilder,
  name: string,
  side: 'above' | 'below',
  limit: OptionalSeries,
  expression: (j: number) => { terms: Terms; constant: number },
  areaPrice: (j: number) => number,
  heightPrice: ((j: number) => number) | null,
): PricedTerms {
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
  const dt = problem.stepHours;
  const T = problem.stepCount;
  const out: PricedTerms[] = [];
  const label = (d: number): string => problem.devices[d].name ?? `device ${d}`;
  const devicePower = (devices: readonly number[], j: number): Terms =>
    devices.flatMap((d): Terms => [
      [columns.charge[d][j], 1],
      [columns.discharge[d][j], -1],
    ]);
  const all = problem.devices.map((_, d) => d);
  const site = (j: number) => ({ terms: devicePower(all, j), constant: problem.inflexiblePowerMw[j] });
  const negated = (e: { terms: Terms; constant: number }) => ({
    terms: e.terms.map(([c, v]): [number, number] => [c, -v]),
    constant: -e.constant,
  });
  const perArea = (price: readonly number[]) => (j: number) => price[j] * dt;
  const perHeight = (price: readonly number[]) => (j: number) => price[j];

  problem.devices.forEach((device, d) => {
    const b = device.breach;
    if (!b) return;
    const soc = (j: number) => ({ terms: [[columns.stock[d][j], 1]] as Terms, constant: 0 });
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
    if (minima && b.socMinima)
      out.push(addBreach(lp, `soc minima breach ${label(d)}`, 'below', minima, soc, perArea(b.socMinima), perHeight(b.socMinima)));
    if (maxima && b.socMaxima)
      out.push(addBreach(lp, `soc maxima breach ${label(d)}`, 'above', maxima, soc, perArea(b.socMaxima), perHeight(b.socMaxima)));
    if (softCapacity(device.consumptionCapacityMw, b.consumption)) {
      const power = (j: number) => ({ terms: [[columns.charge[d][j], 1]] as Terms, constant: 0 });
      out.push(
        addBreach(
          lp,
          `consumption breach ${label(d)}`,
          'above',
          device.consumptionCapacityMw,
          power,
          perArea(b.consumption),
          perHeight(b.consumption),
        ),
      );
    }
    if (softCapacity(device.productionCapacityMw, b.production)) {
      const power = (j: number) => ({ terms: [[columns.discharge[d][j], 1]] as Terms, constant: 0 });
      out.push(
        addBreach(
          lp,
          `production breach ${label(d)}`,
          'above',
          device.productionCapacityMw,
          power,
          perArea(b.production),
          perHeight(b.production),
        ),
      );
    }
  });

  const siteBreach = problem.siteBreach;
  if (siteBreach?.consumption && problem.siteConsumptionCapacityMw) {
    out.push(
      addBreach(
        lp,
        'consumption breach',
        'above',
        problem.siteConsumptionCapacityMw,
        site,
        perArea(siteBreach.consumption),
        perHeight(siteBreach.consumption),
      ),
    );
  }
  if (siteBreach?.production && problem.siteProductionCapacityMw) {
    const production = (j: number) => negated(site(j));
    out.push(
      addBreach(
        lp,
        'production breach',
        'above',
        problem.siteProductionCapacityMw,
        production,
        perArea(siteBreach.production),
        perHeight(siteBreach.production),
      ),
    );
  }
  const none = () => 0;
  if (problem.sitePeakConsumption) {
    const { thresholdMw, price } = problem.sitePeakConsumption;
    out.push(addBreach(lp, 'consumption peak', 'above', thresholdMw, site, none, perHeight(price)));
  }
  if (problem.sitePeakProduction) {
    const { thresholdMw, price } = problem.sitePeakProduction;
    out.push(addBreach(lp, 'production peak', 'above', thresholdMw, (j) => negated(site(j)), none, perHeight(price)));
  }

  for (const c of problem.commitments ?? []) {
    const priced: [number, number][] = [];
    for (let j = 0; j < T; j++) {
      const q = c.baselineMw[j];
      if (q === null) continue;
      const up = lp.addColumn(`${c.name} up[${j}]`, 0, Infinity, c.upPrice[j]);
      const down = lp.addColumn(`${c.name} down[${j}]`, 0, Infinity, -c.downPrice[j]);
      priced.push([up, c.upPrice[j]], [down, -c.downPrice[j]]);
      const inflexible = c.devices === null ? problem.inflexiblePowerMw[j] : 0;
      lp.addRow(`${c.name}[${j}]`, q - inflexible, q - inflexible, [...devicePower(c.devices ?? all, j), [up, -1], [down, 1]]);
    }
    out.push({ name: c.name, terms: priced });
  }
  return out;
}
