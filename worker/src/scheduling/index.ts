export { explainInfeasibility, explainSolverInfeasibility } from './explainInfeasibility.ts';
export { fallbackSchedule } from './fallbackSchedule.ts';
export { buildStorageModel, type LpModel, type StorageModel, type StorageModelIndex } from './lpModel.ts';
export { scheduleProcess, type ProcessProblem, type ProcessSchedule, type ProcessType } from './processScheduler.ts';
export type { DeviceSchedule, SolverStats, StorageSchedule } from './scheduleResult.ts';
export { runCustomScheduler, type CustomSchedulerModule } from './customScheduler.ts';
export { SchedulingError, solveStorage, type SchedulingErrorKind, type SolveStorageOptions } from './solveStorage.ts';
export { highsSolver } from './solvers/highs.ts';
export type { LpOutcome, LpSolver, SolveLimits } from './solvers/lpSolver.ts';
export { yalpsSolver } from './solvers/yalps.ts';
export {
  socSeries,
  socStepForInstant,
  structuralErrors,
  type OptionalSeries,
  type ProblemDisplay,
  type SocConstraintInput,
  type StorageDevice,
  type StorageProblem,
} from './storageProblem.ts';
export { integrateSocMwh } from './socDynamics.ts';
export { solutionViolations } from './verifySolution.ts';
