import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { WARM_UP_PROBLEM, type SchedulerPlugins, type TaskName, type TaskPayload, type TaskResult } from '../../../worker/src/tasks.ts';

/** Worker threads, run by task name with the contract's payload and result types (worker/src/tasks.ts). */
export interface WorkerPool {
  run<N extends TaskName>(name: N, payload: TaskPayload<N>): Promise<TaskResult<N>>;
  destroy(): Promise<void>;
}

/** The typed face of a Piscina pool over the worker file. */
export function typedPool(pool: Piscina): WorkerPool {
  return {
    run: (name, payload) => pool.run(payload, { name }),
    destroy: () => pool.destroy(),
  };
}

/**
 * How every worker thread starts: from the compiled bundle next to the compiled server when
 * packaged, else the source loader (see worker/loader.mjs). Password hashing runs tasks of the
 * same file in a pool of its own.
 *
 * Threads get the least they need: an empty environment (no secret such as the database or Redis
 * URL reaches code that runs in them, plugins included) and memory limits of their own, so one
 * task cannot take the machine.
 *
 * From source, threads start with require(esm) off. Piscina looks a task file up with require()
 * first and import() when that throws; on Node 20.19+ require() of the ES module loader can meet
 * an import() of it still linking in the same thread (the first task posted before the thread's
 * own lookup finished), which ends the process with a fatal V8 error (seen once in CI). With
 * require(esm) off, require() throws at once and every lookup takes the import() path.
 *
 * @param maxOldGenerationSizeMb the heap limit of each thread.
 */
export function workerThreadOptions(maxOldGenerationSizeMb: number) {
  const bundled = new URL('./worker.js', import.meta.url);
  const fromSource = !fs.existsSync(fileURLToPath(bundled));
  return {
    filename: fromSource ? new URL('../../../worker/loader.mjs', import.meta.url).href : bundled.href,
    ...(fromSource ? { execArgv: [...process.execArgv, '--no-experimental-require-module'] } : {}),
    env: {},
    resourceLimits: { maxOldGenerationSizeMb, maxYoungGenerationSizeMb: 64, stackSizeMb: 4 },
  };
}

const WARM_UP_SOLVES = 3;

/**
 * One pool of scheduling threads per server, started when first needed and ended when idle: a
 * thread holds HiGHS' WebAssembly and its compiled code (80–100 MB with its heap), which an idle
 * appliance gives back. The solver is compiled once per thread, not once per schedule.
 * @param threads the most worker threads at once.
 * @param idleMs how long a thread outlives its last task.
 * @param schedulerPlugins the operator's scheduler plugins, the only modules a thread may load by
 *   a `custom-scheduler` name (handed over as thread data, not per task).
 */
export function createWorkerPool(
  threads: number,
  idleMs: number,
  schedulerPlugins: SchedulerPlugins = new Map(),
): WorkerPool & { warmUp(): Promise<void> } {
  const pool = typedPool(
    new Piscina({
      // Big horizons with binaries use a few hundred MB in HiGHS; keep a bad job from taking the machine.
      ...workerThreadOptions(2048),
      workerData: { schedulerPlugins: Object.fromEntries(schedulerPlugins) },
      // Started when first needed: a thread holds the solver (80–100 MB). The warm-up below starts
      // every thread, so that a spare slot's job (see SPARE_SLOTS) finds one right after start too.
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: idleMs,
    }),
  );
  return {
    ...pool,
    // Warm start: the threads load the solver now, not when the first schedule is asked for.
    // Through the task the first schedule runs: piscina looks a task's handler up on its first
    // call. V8 compiles HiGHS' hot functions further in the background once they have run a
    // while: after one solve, the next ones took 50–220 ms for 192 steps, after three about
    // 30–40 ms. One chain of solves per thread, side by side, so that each thread starts and
    // warms up. A failure here (or the pool closing first) shows again, with its reason, on a
    // real task.
    async warmUp() {
      await Promise.all(
        Array.from({ length: threads }, async () => {
          for (let i = 0; i < WARM_UP_SOLVES; i++) await pool.run('storageSchedule', WARM_UP_PROBLEM);
        }),
      ).catch(() => {});
    },
  };
}
