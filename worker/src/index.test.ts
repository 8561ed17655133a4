import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { customStorageSchedule, fallbackStorageSchedule, processSchedule, storageSchedule } from './index.ts';
import { WARM_UP_PROBLEM } from './scheduling/warmUp.ts';
import { battery, constant, site } from './scheduling/testFixtures.ts';
import type { ScheduleOutcome } from './tasks.ts';

/** The schedule of a successful outcome; fails the test with the reason otherwise. */
function scheduleOf<T>(outcome: ScheduleOutcome<T>): T {
  if (!outcome.ok) throw new Error(`expected a schedule, got ${outcome.kind}: ${outcome.message}`);
  return outcome.schedule;
}

describe('worker tasks', () => {
  it('solves the warm-up schedule (a failing warm-up would hide behind the first real one)', async () => {
    expect(scheduleOf(await storageSchedule(WARM_UP_PROBLEM)).devices).toHaveLength(1);
  });

  it('storageSchedule returns a structured-clonable schedule', async () => {
    const problem = site(
      [battery({ stepCount: 8, socAtStartMwh: 0.1, socMinMwh: 0.1, socMaxMwh: 1, powerMw: 1 })],
      [...constant(4, 90), ...constant(4, 100)],
      1,
    );
    const outcome = await storageSchedule({ ...problem, timeLimitSeconds: 10 });
    expect(structuredClone(outcome)).toEqual(outcome);
    const schedule = scheduleOf(outcome);
    expect(schedule.totalCost).toBeCloseTo(-9, 9);
  });

  it('storageSchedule answers an infeasible problem as a typed outcome whose message carries the reasons', async () => {
    const problem = site([battery({ stepCount: 1, socAtStartMwh: 0, powerMw: 1 })], [10], null);
    const outcome = await storageSchedule({ ...problem, devices: [{ ...problem.devices[0], socTargetsMwh: [2] }] });
    expect(outcome).toMatchObject({ ok: false, kind: 'infeasible' });
    expect(structuredClone(outcome)).toEqual(outcome);
    expect(!outcome.ok && outcome.message).toMatch(
      /^The input data yields an infeasible problem:\n- soc-target 2 MWh at the end of step 0 cannot be reached/,
    );
  });

  it('fallbackStorageSchedule answers an infeasible problem with the simple policy', async () => {
    const problem = site([battery({ stepCount: 4, socAtStartMwh: 0, socMaxMwh: 1, powerMw: 1 })], constant(4, 10), null);
    const schedule = scheduleOf(
      await fallbackStorageSchedule({ ...problem, devices: [{ ...problem.devices[0], socTargetsMwh: [2, null, null, null] }] }),
    );
    // The target lies above soc-max, so the policy stops at soc-max.
    expect(schedule.devices[0].powerMw).toEqual([1, 1, 1, 1]);
    expect(schedule.devices[0].socMwh[4]).toBeCloseTo(1, 12);
    const invalid = await fallbackStorageSchedule({ ...problem, inflexiblePowerMw: [] });
    expect(invalid).toMatchObject({ ok: false, kind: 'invalid-problem', message: expect.stringMatching(/inflexiblePowerMw has 0 values/) });
  });

  it('processSchedule runs the process scheduler', async () => {
    const schedule = await processSchedule({
      processType: 'SHIFTABLE',
      consumptionPrice: [3, 1, 1, 3],
      forbidden: [false, false, false, false],
      powerMw: 2,
      durationSteps: 2,
      stepHours: 0.25,
    });
    expect(schedule).toEqual({ ok: true, schedule: { powerMw: [0, 2, 2, 0], totalCost: 1 } });
  });

  it('customStorageSchedule loads nothing the server did not register with the thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'custom-scheduler-'));
    const module = join(dir, 'idle.mjs');
    writeFileSync(module, `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(join(dir, 'marker'))}, 'ran');`);
    const problem = site([battery({ stepCount: 3 })], constant(3, 10), null);
    await expect(customStorageSchedule({ plugin: module, problem })).rejects.toThrow(/is not a registered scheduler plugin/);
    expect(existsSync(join(dir, 'marker'))).toBe(false);
  });
});
