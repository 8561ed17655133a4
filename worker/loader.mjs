// Loads the TypeScript worker tasks when Flexsite runs from source: worker threads do not
// inherit the main thread's TypeScript loader, so they import the tasks through tsx here.
// Packaged builds point piscina at the compiled worker instead (see server/src/workers/workerPool.ts).
// One line per task of the contract in src/tasks.ts.
import { tsImport } from 'tsx/esm/api';

const tasks = await tsImport('./src/index.ts', import.meta.url);

export const storageSchedule = tasks.storageSchedule;
export const processSchedule = tasks.processSchedule;
export const customStorageSchedule = tasks.customStorageSchedule;
export const fallbackStorageSchedule = tasks.fallbackStorageSchedule;
export const forecast = tasks.forecast;
export const passwordHash = tasks.passwordHash;
export const passwordMatches = tasks.passwordMatches;
