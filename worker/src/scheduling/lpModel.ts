import { lossCoefficients } from './socDynamics.ts';
import { addSoftConstraints, type PricedTerms } from './softConstraints.ts';
import { hardPart, productionPrices, siteLimitsMw, type StorageProblem } from './storageProblem.ts';

/**
 * A solver-neutral LP/MILP: minimise cost·x + objectiveConstant subject to
 * columnLower ≤ x ≤ columnUpper, rowLower ≤ A·x ≤ rowUpper and integrality of flagged columns.
 * Missing bounds are ±Infinity. A is stored row-wise (CSR).
 */
export interface LpModel {
  readonly columnCount: number;
  readonly columnLower: Float64Array;
  readonly columnUpper: Float64Array;
  readonly columnCost: Float64Array;
  /** 1 for integer columns, 0 for continuous ones. */
  readonly columnInteger: Uint8Array;
  readonly columnNames: readonly string[];
  readonly rowCount: number;
  readonly rowLower: Float64Array;
  readonly rowUpper: Float64Array;
  /** CSR offsets: row i uses entries rowStarts[i] … rowStarts[i+1]−1. */
  readonly rowStarts: Int32Array;
  readonly rowColumns: Int32Array;
  readonly rowValues: Float64Array;
  readonly rowNames: readonly string[];
  readonly objectiveConstant: number;
}

/** Accumulates columns and rows; `finish()` freezes them into an {@link LpModel}. */
export class LpBuilder {
  private readonly colLower: number[] = [];
  private readonly colUpper: number[] = [];
  private readonly colCost: number[] = [];
  private readonly colInteger: number[] = [];
  private readonly colNames: string[] = [];
  private readonly rowLow: number[] = [];
  private readonly rowUp: number[] = [];
  private readonly starts: number[] = [0];
  private readonly columns: number[] = [];
  private readonly values: number[] = [];
  private readonly rowNameList: string[] = [];
  objectiveConstant = 0;

  addColumn(name: string, lower: number, upper: number, cost: number, integer = false): number {
    this.colLower.push(lower);
    this.colUpper.push(upper);
    this.colCost.push(cost);
    this.colInteger.push(integer ? 1 : 0);
    this.colNames.push(name);
    return this.colNames.length - 1;
  }

  /** Adds lower ≤ Σ coefficient·x[column] ≤ upper; zero coefficients are dropped. */
  addRow(name: string, lower: number, upper: number, terms: readonly (readonly [number, number])[]): number {
    for (const [column, coefficient] of terms) {
      if (coefficient === 0) continue;
      this.columns.push(column);
      this.values.push(coefficient);
    }
    this.starts.push(this.columns.length);
    this.rowLow.push(lower);
    this.rowUp.push(upper);
    this.rowNameList.push(name);
    return this.rowNameList.length - 1;
  }

  finish(): LpModel {
    return {
      columnCount: this.colNames.length,
      columnLower: Float64Array.from(this.colLower),
      columnUpper: Float64Array.from(this.colUpper),
      columnCost: Float64Array.from(this.colCost),
      columnInteger: Uint8Array.from(this.colInteger),
      columnNames: this.colNames,
      rowCount: this.rowNameList.length,
      rowLower: Float64Array.from(this.rowLow),
      rowUpper: Float64Array.from(this.rowUp),
      rowStarts: Int32Array.from(this.starts),
      rowColumns: Int32Array.from(this.columns),
      rowValues: Float64Array.from(this.values),
      rowNames: this.rowNameList,
      objectiveConstant: this.objectiveConstant,
    };
  }
}

/** Where each quantity of a storage problem lives in the model (column indices, −1 = absent). */
export interface StorageModelIndex {
  /** Per device, per step: charging power column (MW ≥ 0). */
  readonly charge: readonly Int32Array[];
  /** Per device, per step: discharging power column (MW ≥ 0, counted as production). */
  readonly discharge: readonly Int32Array[];
  /** Per device, per step: SoC at the end of the step (MWh). */
  readonly stock: readonly Int32Array[];
  /** Per device, per step: charge/discharge binary, or −1. */
  readonly sign: readonly Int32Array[];
  /** Per step: site import column (MW), only when production and consumption prices differ. */
  readonly siteImport: Int32Array | null;
  /** Per step: site export column (MW), only when production and consumption prices differ. */
  readonly siteExport: Int32Array | null;
  /** Number of binary columns in the model. */
  readonly binaryCount: number;
  /** Objective terms of each soft constraint and commitment, by name (for the cost per commitment). */
  readonly priced: readonly PricedTerms[];
}

/** A built model together with its index. */
export interface StorageModel {
  readonly model: LpModel;
  readonly index: StorageModelIndex;
}

/**
 * Weight of the "prefer a full storage sooner" tie-breaker, in currency per MWh of headroom per step.
 *
 * It rewards SoC at every step end, so among equal-cost schedules the fullest-sooner one wins
 * (charge early, discharge late). Its size, 10⁻⁴ · price spread / T per stock unit (MWh/Δh),
 * keeps the total reward below 10⁻⁴ · spread per MWh of storage, far below any real price difference.
 *
 * @param problem the problem.
 * @returns the weight per MWh of headroom per step.
 */
export function tieBreakerWeight(problem: StorageProblem): number {
  const prices = problem.consumptionPrice;
  const spread = Math.max(...prices) - Math.min(...prices);
  return (1e-4 * (spread > 0 ? spread : 1)) / problem.stepCount / problem.stepHours;
}

/**
 * Steps where a device can both charge and discharge: the only places a sign binary makes sense.
 *
 * @param problem the problem.
 * @param device the device index.
 * @returns the step indices in increasing order.
 */
export function twoWaySteps(problem: StorageProblem, device: number): number[] {
  const d = problem.devices[device];
  const steps: number[] = [];
  for (let j = 0; j < problem.stepCount; j++) {
    if (d.consumptionCapacityMw[j] > 0 && d.productionCapacityMw[j] > 0) steps.push(j);
  }
  return steps;
}

/**
 * Builds the LP/MILP of a storage problem.
 *
 * Per device and step: charge c ∈ [0, consumption capacity], discharge x ∈ [0, production capacity]
 * and the end-of-step SoC s ∈ [max(soc-min, minimum, target), min(soc-max, maximum, target)],
 * linked by the O(T) recursion s_j = a_j·s_{j−1} + b_j·Δh·(η⁺c_j − x_j/η⁻ + gain_j).
 * The site row bounds Σ(c − x) + inflexible by the site capacities. With a single price the energy
 * cost sits on c and x directly (the inflexible part is a constant); when production and consumption
 * prices differ the site power is split into import and export columns, and steps where selling
 * pays more than buying get an import/export binary so the model cannot buy and sell at once.
 *
 * The objective is the energy cost in currency, Σ Δh·(price_in·import − price_out·export), plus the
 * optional tie-breaker Σ w·(soc-max − s_j), plus the priced slacks of soft constraints and
 * commitments (see `softConstraints.ts`).
 *
 * @param full the problem (assumed structurally valid).
 * @param binarySteps per device, the steps that get a no-simultaneous-charge-and-discharge binary;
 *   steps where the device cannot go both ways are ignored.
 * @returns the model and the index of its columns.
 */
export function buildStorageModel(full: StorageProblem, binarySteps: readonly ReadonlySet<number>[] = []): StorageModel {
  // Columns and rows carry the hard constraints, then the soft ones as priced slacks, then the sign binaries.
  const problem = hardPart(full);
  const lp = new LpBuilder();
  const buyPrice = problem.consumptionPrice;
  const sellPrice = productionPrices(problem);
  const pricing = { buyPrice, sellPrice, splitSite: buyPrice.some((price, j) => price !== sellPrice[j]) };
  const devices = problem.devices.map((_, d) => addDevice(lp, problem, d, pricing));
  const columns = { charge: devices.map((v) => v.charge), discharge: devices.map((v) => v.discharge), stock: devices.map((v) => v.stock) };
  const site = addSite(lp, problem, columns, pricing);
  const priced = addSoftConstraints(lp, full, columns);
  const sign = problem.devices.map(() => new Int32Array(problem.stepCount).fill(-1));
  const signBinaries = addSignBinaries(lp, problem, binarySteps, { ...columns, sign });
  return {
    model: lp.finish(),
    index: { ...columns, sign, ...site, binaryCount: site.binaryCount + signBinaries, priced },
  };
}

/** How energy is priced per step: buying, selling, and whether the two differ anywhere (then the site power is split). */
interface Pricing {
  readonly buyPrice: readonly number[];
  readonly sellPrice: readonly number[];
  readonly splitSite: boolean;
}

/** A device's charge, discharge and SoC columns per step, and the SoC recursion linking them. */
function addDevice(lp: LpBuilder, problem: StorageProblem, d: number, { buyPrice, splitSite }: Pricing) {
  const T = problem.stepCount;
  const dt = problem.stepHours;
  const device = problem.devices[d];
  const tieBreaker = problem.preferChargingSooner ? tieBreakerWeight(problem) : 0;
  const c = new Int32Array(T);
  const x = new Int32Array(T);
  const s = new Int32Array(T);
  for (let j = 0; j < T; j++) {
    c[j] = lp.addColumn(`charge[${d},${j}]`, 0, device.consumptionCapacityMw[j], splitSite ? 0 : buyPrice[j] * dt);
    x[j] = lp.addColumn(`discharge[${d},${j}]`, 0, device.productionCapacityMw[j], splitSite ? 0 : -buyPrice[j] * dt);
    const weight = tieBreaker * (problem.preferCurtailingLater && T > 1 ? 1 - j / (T - 1) : 1);
    s[j] = lp.addColumn(`soc[${d},${j}]`, ...stockBoundsMwh(problem, d, j), -weight);
    if (weight > 0) lp.objectiveConstant += weight * device.socMaxMwh;

    const { a, b } = lossCoefficients(device.storageEfficiency[j]);
    const gainMwh = b * dt * (device.stockDeltaMw?.[j] ?? 0);
    const terms: [number, number][] = [
      [s[j], 1],
      [c[j], -b * dt * device.chargingEfficiency[j]],
      [x[j], (b * dt) / device.dischargingEfficiency[j]],
    ];
    // The first step starts from the known SoC, which moves to the right-hand side.
    const rhs = j === 0 ? a * device.socAtStartMwh + gainMwh : gainMwh;
    if (j > 0) terms.push([s[j - 1], -a]);
    lp.addRow(`stock[${d},${j}]`, rhs, rhs, terms);
  }
  return { charge: c, discharge: x, stock: s };
}

/**
 * The site row per step: the site capacities on the devices' net power plus the inflexible part,
 * priced directly, or through import and export columns where the prices differ.
 */
function addSite(
  lp: LpBuilder,
  problem: StorageProblem,
  { charge, discharge }: { charge: readonly Int32Array[]; discharge: readonly Int32Array[] },
  { buyPrice, sellPrice, splitSite }: Pricing,
): { siteImport: Int32Array | null; siteExport: Int32Array | null; binaryCount: number } {
  const T = problem.stepCount;
  const dt = problem.stepHours;
  let binaryCount = 0;
  const siteImport = splitSite ? new Int32Array(T) : null;
  const siteExport = splitSite ? new Int32Array(T) : null;
  for (let j = 0; j < T; j++) {
    const inflexible = problem.inflexiblePowerMw[j];
    const limits = siteLimitsMw(problem, j);
    const deviceTerms: [number, number][] = [];
    for (let d = 0; d < problem.devices.length; d++) deviceTerms.push([charge[d][j], 1], [discharge[d][j], -1]);

    if (siteImport === null || siteExport === null) {
      lp.objectiveConstant += buyPrice[j] * dt * inflexible;
      if (Number.isFinite(limits.consumptionMw) || Number.isFinite(limits.productionMw)) {
        lp.addRow(`site[${j}]`, -limits.productionMw - inflexible, limits.consumptionMw - inflexible, deviceTerms);
      }
      continue;
    }
    // Finite caps keep the LP bounded even where exporting pays more than importing: in any schedule
    // that does not import and export at once, import ≤ the largest possible net consumption.
    let mostConsumptionMw = inflexible;
    let mostProductionMw = -inflexible;
    for (const device of problem.devices) {
      mostConsumptionMw += device.consumptionCapacityMw[j];
      mostProductionMw += device.productionCapacityMw[j];
    }
    const importUpper = Math.min(limits.consumptionMw, Math.max(0, mostConsumptionMw));
    const exportUpper = Math.min(limits.productionMw, Math.max(0, mostProductionMw));
    const imp = lp.addColumn(`import[${j}]`, 0, importUpper, buyPrice[j] * dt);
    const exp = lp.addColumn(`export[${j}]`, 0, exportUpper, -sellPrice[j] * dt);
    siteImport[j] = imp;
    siteExport[j] = exp;
    lp.addRow(`site[${j}]`, -inflexible, -inflexible, [...deviceTerms, [imp, -1], [exp, 1]]);
    if (sellPrice[j] > buyPrice[j] && importUpper > 0 && exportUpper > 0) {
      const w = lp.addColumn(`importMode[${j}]`, 0, 1, 0, true);
      binaryCount++;
      lp.addRow(`importOnlyIfMode[${j}]`, -Infinity, 0, [
        [imp, 1],
        [w, -importUpper],
      ]);
      lp.addRow(`exportOnlyIfNotMode[${j}]`, -Infinity, exportUpper, [
        [exp, 1],
        [w, exportUpper],
      ]);
    }
  }
  return { siteImport, siteExport, binaryCount };
}

/**
 * The sign binaries of the given steps (recorded in `columns.sign`).
 * @returns how many were added.
 */
function addSignBinaries(
  lp: LpBuilder,
  problem: StorageProblem,
  binarySteps: readonly ReadonlySet<number>[],
  { charge, discharge, sign }: { charge: readonly Int32Array[]; discharge: readonly Int32Array[]; sign: Int32Array[] },
): number {
  let binaryCount = 0;
  // Sign binaries come last, so every build of a problem shares its other columns and rows, in the
  // same order: a solution of one build lines up with the next (see keptRows.ts).
  problem.devices.forEach((device, d) => {
    for (const j of [...(binarySteps[d] ?? [])].sort((a, b) => a - b)) {
      if (!(device.consumptionCapacityMw[j] > 0 && device.productionCapacityMw[j] > 0)) continue;
      // z = 1 allows charging only, z = 0 discharging only; each big-M is the step's own capacity.
      const z = lp.addColumn(`chargeMode[${d},${j}]`, 0, 1, 0, true);
      sign[d][j] = z;
      binaryCount++;
      lp.addRow(`chargeOnlyIfMode[${d},${j}]`, -Infinity, 0, [
        [charge[d][j], 1],
        [z, -device.consumptionCapacityMw[j]],
      ]);
      lp.addRow(`dischargeOnlyIfNotMode[${d},${j}]`, -Infinity, device.productionCapacityMw[j], [
        [discharge[d][j], 1],
        [z, device.productionCapacityMw[j]],
      ]);
    }
  });
  return binaryCount;
}

/**
 * Merged hard SoC bounds at the end of a step: targets pin both sides, minima and maxima tighten.
 *
 * @param problem the problem.
 * @param device the device index.
 * @param step the step index.
 * @returns lower and upper bound (MWh); lower > upper when the constraints conflict.
 */
export function stockBoundsMwh(problem: StorageProblem, device: number, step: number): [number, number] {
  const d = problem.devices[device];
  const target = d.socTargetsMwh?.[step] ?? null;
  let lower = Math.max(d.socMinMwh, d.socMinimaMwh?.[step] ?? -Infinity);
  let upper = Math.min(d.socMaxMwh, d.socMaximaMwh?.[step] ?? Infinity);
  if (target !== null) {
    lower = Math.max(lower, target);
    upper = Math.min(upper, target);
  }
  return [lower, upper];
}
