import type { LpModel } from './lpModel.ts';

/** Default feasibility tolerance, scaled by max(1, |bound|) so large sites are not held to sub-µW precision. */
export const FEASIBILITY_TOLERANCE = 1e-6;

/**
 * Checks a candidate solution against every column bound, integrality flag and row of a model,
 * without trusting anything the solver said about it.
 *
 * @param model the model.
 * @param x column values.
 * @param tolerance absolute tolerance, applied as tolerance·max(1, |bound|).
 * @returns one line per violation (empty when the solution is feasible).
 */
export function solutionViolations(model: LpModel, x: Float64Array, tolerance = FEASIBILITY_TOLERANCE): string[] {
  const violations: string[] = [];
  const slack = (bound: number): number => tolerance * Math.max(1, Math.abs(bound));
  if (x.length !== model.columnCount) return [`solution has ${x.length} values for ${model.columnCount} columns`];

  for (let i = 0; i < model.columnCount; i++) {
    const v = x[i];
    const name = model.columnNames[i];
    if (!Number.isFinite(v)) violations.push(`${name} = ${v} is not a finite number`);
    else if (v < model.columnLower[i] - slack(model.columnLower[i]))
      violations.push(`${name} = ${v} is below its lower bound ${model.columnLower[i]}`);
    else if (v > model.columnUpper[i] + slack(model.columnUpper[i]))
      violations.push(`${name} = ${v} is above its upper bound ${model.columnUpper[i]}`);
    if (model.columnInteger[i] === 1 && Math.abs(v - Math.round(v)) > tolerance) violations.push(`${name} = ${v} is not integral`);
  }
  for (let r = 0; r < model.rowCount; r++) {
    const activity = rowActivity(model, x, r);
    const name = model.rowNames[r];
    if (activity < model.rowLower[r] - slack(model.rowLower[r])) violations.push(`${name}: ${activity} is below ${model.rowLower[r]}`);
    else if (activity > model.rowUpper[r] + slack(model.rowUpper[r])) violations.push(`${name}: ${activity} is above ${model.rowUpper[r]}`);
  }
  return violations;
}

/**
 * Row activity Σ a_rj·x_j.
 *
 * @param model the model.
 * @param x column values.
 * @param row the row index.
 * @returns the activity.
 */
export function rowActivity(model: LpModel, x: Float64Array, row: number): number {
  let sum = 0;
  for (let k = model.rowStarts[row]; k < model.rowStarts[row + 1]; k++) sum += model.rowValues[k] * x[model.rowColumns[k]];
  return sum;
}

/**
 * Objective value recomputed from the solution (cost·x + constant).
 *
 * @param model the model.
 * @param x column values.
 * @returns the objective value.
 */
export function objectiveValue(model: LpModel, x: Float64Array): number {
  let sum = model.objectiveConstant;
  for (let i = 0; i < model.columnCount; i++) sum += model.columnCost[i] * x[i];
  return sum;
}
