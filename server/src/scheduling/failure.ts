import { JobFailure } from '../jobs/jobQueue.ts';

/** A scheduling job's failure, e.g. `InfeasibleProblemException` with the infeasible job's fallback. */
export class SchedulingFailure extends JobFailure {}
