import { beforeAll, describe, expect, it } from 'vitest';
import { DateTime } from 'luxon';
import { householdKw, householdMissing, readHousehold } from './household.ts';
import { failedPlans, notReady } from './checks.ts';
import { carHome, simulateSite, type SiteRun } from './site.ts';
import { STEP_MS, ZONE } from './setup.ts';

/**
 * The site simulation itself: half a day (Monday 00:00–12:00, the car's 07:00 target and the
 * morning sun included) of the real server on a simulated clock. What is checked here is the
 * simulation's own physics and bookkeeping, on which the week's checks (week.test.ts) rest.
 */

const missing = householdMissing();
if (missing) console.warn(`site simulation skipped: ${missing}`);
const HOURS = STEP_MS / 3_600_000;
let run: SiteRun;

describe.skipIf(missing !== undefined)(`site simulation${missing ? ` (skipped: ${missing})` : ''}`, () => {
  beforeAll(async () => {
    run = await simulateSite({ days: 0.5, cronMinute: '*/15' });
  }, 300_000);

  it('steps through every quarter hour once, with the house following the real household series', () => {
    expect(run.steps).toHaveLength(48);
    const series = readHousehold();
    run.steps.forEach((s, i) => {
      expect(s.startMs).toBe(run.startMs + i * STEP_MS);
      expect({ loadKw: s.loadKw, pvKw: s.pvKw }).toEqual(householdKw(series, s.startMs));
    });
    // Monday 2 May 2016, 00:00 in Konstanz; its first hour's load is the extract's row 2016-05-01T22:00Z.
    expect(DateTime.fromMillis(run.startMs, { zone: ZONE }).toISO()).toBe('2016-05-02T00:00:00.000+02:00');
    expect(run.steps[0].loadKw).toBe(0.364);
  });

  it('keeps each device within its power limits and its SoC within empty and full, with the energy its efficiency allows', () => {
    let battery = 5;
    let car = 12;
    for (const s of run.steps) {
      expect(Math.abs(s.batteryKw)).toBeLessThanOrEqual(5 + 1e-9);
      expect(s.evKw).toBeGreaterThanOrEqual(0);
      expect(s.evKw).toBeLessThanOrEqual(7.4 + 1e-9);
      if (!s.evPlugged) expect(s.evKw).toBe(0);
      // Charging stores 95 % of what is drawn; discharging delivers 95 % of what leaves the battery.
      battery += s.batteryKw > 0 ? s.batteryKw * 0.95 * HOURS : (s.batteryKw / 0.95) * HOURS;
      car += s.evKw * 0.9 * HOURS;
      expect(s.batterySocKwh).toBeCloseTo(battery, 9);
      expect(s.evSocKwh).toBeCloseTo(car, 9);
      expect(s.batterySocKwh).toBeGreaterThanOrEqual(0);
      expect(s.batterySocKwh).toBeLessThanOrEqual(10);
      expect(s.evSocKwh).toBeLessThanOrEqual(40);
    }
  });

  it('follows the plan it reads back wherever the physics allow it, and reports what it measured', () => {
    const followed = run.steps.filter((s) => s.batterySetpointKw !== null);
    expect(followed.length).toBeGreaterThan(40);
    for (const s of followed) {
      const clipped = Math.abs(s.batteryKw - s.batterySetpointKw!) > 1e-9;
      // Only a setpoint beyond the power limit, or one that would pass empty or full, is clipped.
      if (clipped) expect(Math.abs(s.batterySetpointKw!) > 5 || s.batterySocKwh < 1e-9 || s.batterySocKwh > 10 - 1e-9).toBe(true);
    }
    // The battery reported its SoC at every quarter hour from its set-up at 23:15 to the end; the car while it was home.
    const reported = Array.from({ length: 52 }, (_, i) => run.startMs + (i - 3) * STEP_MS);
    expect(run.reports.battery.map((r) => r.atMs)).toEqual(reported);
    expect(run.reports.ev.map((r) => r.atMs)).toEqual(reported.filter((t) => carHome(t)));
  });

  it('runs the automations on the simulated clock: forecasts hourly, the plans every quarter hour (the car while home)', () => {
    const [forecasts, batteryRuns, carRuns] = run.ids.automations.map((id) => run.runs.filter((r) => r.automationId === id));
    const quarters = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i * STEP_MS);
    expect(forecasts.map((r) => r.dueMs)).toEqual(quarters(run.startMs, 49).filter((_, i) => i % 4 === 0));
    expect(forecasts.every((r) => r.status === 'finished' && r.scheduleJobId === null)).toBe(true);
    // Set up at 23:15: the plans are due from 23:30 on; the car's in the hours of its cron (until 07:45).
    expect(batteryRuns.map((r) => r.dueMs)).toEqual(quarters(run.startMs - 2 * STEP_MS, 51));
    expect(carRuns.map((r) => r.dueMs)).toEqual(quarters(run.startMs - 2 * STEP_MS, 34));
    // The operator's two presses of "Compute" (23:30, 00:15) are kept apart from the automations' plans.
    expect(run.computes.map((c) => c.atMs)).toEqual([run.startMs - 2 * STEP_MS, run.startMs + STEP_MS]);
    expect(run.plans.some((p) => run.computes.some((c) => c.jobId === p.jobId))).toBe(false);
    // Each plan read is the one its run queued, queued at the run's due time.
    for (const [runs, device] of [
      [batteryRuns, 'battery'],
      [carRuns, 'ev'],
    ] as const) {
      const queued = runs.filter((r) => r.scheduleJobId !== null);
      expect(run.plans.filter((p) => p.device === device).map((p) => [p.jobId, p.createdMs])).toEqual(
        queued.map((r) => [r.scheduleJobId, r.dueMs]),
      );
    }
    expect(notReady(run.steps)).toEqual([]);
    // Whatever failed says why, in words the report can carry.
    for (const line of failedPlans(run.plans)) expect(line).toMatch(/: \w+: /);
  });
});
