import { describe, expect, it } from 'vitest';
import { buildStorageModel } from './lpModel.ts';
import { SchedulingError, solveStorage } from './solveStorage.ts';
import { highsSolver } from './solvers/highs.ts';
import type { StorageProblem } from './storageProblem.ts';
import { battery, constant, DAY_2_PRICES, scheduleViolations, site } from './testFixtures.ts';

const round6 = (v: number): number => Math.round(v * 1e6) / 1e6;
const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

describe('scheduler.md §4 TC5: test battery on day 2 with efficiencies', () => {
  // Day 2, 96 quarter-hours; soc 2.5 MWh in [0.5, 4.5], ±2 MW device and site.
  const tc5 = (roundtripEfficiency: number, storageEfficiency: number): StorageProblem =>
    site([battery({ stepCount: 96, socMinMwh: 0.5, socMaxMwh: 4.5, roundtripEfficiency, storageEfficiency })], DAY_2_PRICES, 2);

  it.each([
    [1, 1, -240],
    [1, 0.999, -231.916179],
    [1, 0.5, 3104.55952],
    [0.99, 1, -235.178849],
    [0.01, 1, -20],
  ])('r = %f, e = %f costs %f EUR and respects every limit', async (r, e, cost) => {
    const problem = tc5(r, e);
    const schedule = await solveStorage(problem);
    const soc = schedule.devices[0].socMwh;
    expect(schedule.totalCost).toBeCloseTo(cost, 5);
    expect(round6(soc[96])).toBe(0.5);
    expect(scheduleViolations(problem, schedule)).toEqual([]);
    if (r > 0.9 && e > 0.9) {
      expect(soc[32]).toBeCloseTo(0.5, 3);
      expect(round6(soc[64])).toBe(4.5);
    }
  });

  it('r = 1, e = 1 fills up at the start and empties as late as possible (tie-breaker)', async () => {
    const { devices } = await solveStorage(tc5(1, 1));
    const expected = [...constant(4, 2), ...constant(20, 0), ...constant(8, -2), ...constant(8, 2), ...constant(48, 0), ...constant(8, -2)];
    expect(devices[0].powerMw.map(round6)).toEqual(expected);
  });

  it('r = 0.01 idles and sells only in the last step', async () => {
    const { devices } = await solveStorage(tc5(0.01, 1));
    expect(devices[0].powerMw.slice(0, 95).every((p) => Math.abs(p) < 1e-9)).toBe(true);
    expect(devices[0].powerMw[95]).toBeCloseTo(-0.8, 9);
    expect(round6(devices[0].socMwh[32])).toBe(2.5);
    expect(round6(devices[0].socMwh[64])).toBe(2.5);
  });

  it('e = 0.5 holds soc-min against the losses', async () => {
    const { devices } = await solveStorage(tc5(1, 0.5));
    expect(devices[0].powerMw[0]).toBeCloseTo(-2, 9);
    expect(devices[0].powerMw[1]).toBeCloseTo(0.307, 3);
    expect(devices[0].powerMw.slice(2).every((p) => Math.abs(p - 1.386294) < 1e-6)).toBe(true);
  });
});

describe('scheduler.md §4 TC9: two-hour price step 90 → 100', () => {
  // 2015-01-02 15:00–17:00 local, soc 100 kWh in [100 kWh, 1 MWh], 1 MW device and site.
  const tc9 = (): StorageProblem =>
    site(
      [battery({ stepCount: 8, socAtStartMwh: 0.1, socMinMwh: 0.1, socMaxMwh: 1, powerMw: 1 })],
      [...constant(4, 90), ...constant(4, 100)],
      1,
    );

  it('charges 0.9 MWh in the first hour and sells it in the second (cost −9)', async () => {
    const problem = tc9();
    const schedule = await solveStorage(problem);
    const power = schedule.devices[0].powerMw;
    expect(round6(sum(power.slice(0, 4)) * 0.25)).toBe(0.9);
    expect(round6(sum(power.slice(4)) * 0.25)).toBe(-0.9);
    expect(power.map(round6)).toEqual([1, 1, 1, 0.6, -0.6, -1, -1, -1]);
    // Hand calculation: 0.9 MWh bought at 90 EUR/MWh, sold at 100 EUR/MWh.
    expect(schedule.totalCost).toBeCloseTo(0.9 * 90 - 0.9 * 100, 9);
    expect(schedule.costPerStep.map(round6)).toEqual([22.5, 22.5, 22.5, 13.5, -15, -25, -25, -25]);
    expect(scheduleViolations(problem, schedule)).toEqual([]);
  });

  it('power-capacity 850 kW: ±0.85 MWh per hour, cost −8.5', async () => {
    const base = tc9();
    const device = { ...base.devices[0], consumptionCapacityMw: constant(8, 0.85), productionCapacityMw: constant(8, 0.85) };
    const schedule = await solveStorage({ ...base, devices: [device] });
    const power = schedule.devices[0].powerMw;
    expect(sum(power.slice(0, 4)) * 0.25).toBeCloseTo(0.85, 6);
    expect(sum(power.slice(4)) * 0.25).toBeCloseTo(-0.85, 6);
    expect(schedule.totalCost).toBeCloseTo(-8.5, 6);
  });

  it('soc-maxima 950 kWh at 16:00 (end of step 3): cost −8.5', async () => {
    const base = tc9();
    const maxima = [null, null, null, 0.95, null, null, null, null];
    const problem = { ...base, devices: [{ ...base.devices[0], socMaximaMwh: maxima }] };
    const schedule = await solveStorage(problem);
    expect(sum(schedule.devices[0].powerMw.slice(0, 4)) * 0.25).toBeCloseTo(0.85, 6);
    expect(schedule.totalCost).toBeCloseTo(-8.5, 6);
    expect(scheduleViolations(problem, schedule)).toEqual([]);
  });

  it('soc-maxima 200 kWh at 16:45 and 17:00: +1, +1, +1, +0.4, −1, −1, −1, −0.4', async () => {
    const base = tc9();
    const maxima = [null, null, null, null, null, null, 0.2, 0.2];
    const problem = { ...base, devices: [{ ...base.devices[0], socMaximaMwh: maxima }] };
    const schedule = await solveStorage(problem);
    expect(schedule.devices[0].powerMw.map(round6)).toEqual([1, 1, 1, 0.4, -1, -1, -1, -0.4]);
    expect(schedule.totalCost).toBeCloseTo(-8.5, 6);
  });
});

describe('solveStorage', () => {
  it('meets soc-targets exactly and keeps SoC within soc-minima', async () => {
    const T = 48;
    const prices = Array.from({ length: T }, (_, j) => 50 + 40 * Math.sin((2 * Math.PI * j) / T));
    const targets: (number | null)[] = constant(T, 0).map(() => null);
    targets[11] = 4.2;
    targets[T - 1] = 1.3;
    const minima: (number | null)[] = targets.map(() => null);
    minima[30] = 3;
    const device = {
      ...battery({ stepCount: T, roundtripEfficiency: 0.9, storageEfficiency: 0.9999 }),
      socTargetsMwh: targets,
      socMinimaMwh: minima,
    };
    const problem = site([device], prices, 3);
    const schedule = await solveStorage(problem);
    expect(Math.abs(schedule.devices[0].socMwh[12] - 4.2)).toBeLessThan(1e-6);
    expect(Math.abs(schedule.devices[0].socMwh[T] - 1.3)).toBeLessThan(1e-6);
    expect(schedule.devices[0].socMwh[31]).toBeGreaterThanOrEqual(3 - 1e-6);
    expect(scheduleViolations(problem, schedule)).toEqual([]);
  });

  it('never exceeds the site limits when an inflexible load eats the headroom', async () => {
    const T = 24;
    const problem: StorageProblem = {
      ...site([battery({ stepCount: T, socAtStartMwh: 0 })], [...constant(12, 10), ...constant(12, 200)], 2.5),
      inflexiblePowerMw: [...constant(6, 1.5), ...constant(6, -2), ...constant(12, 1)],
    };
    const schedule = await solveStorage(problem);
    expect(scheduleViolations(problem, schedule)).toEqual([]);
    // Cheap hours: charging is capped by what the load leaves of 2.5 MW.
    expect(schedule.devices[0].powerMw[0]).toBeCloseTo(1, 6);
    expect(Math.max(...schedule.sitePowerMw)).toBeLessThanOrEqual(2.5 + 1e-6);
  });

  it('splits import and export when the production price is lower (hand-calculated cost)', async () => {
    // 1-hour steps: PV surplus of 1 MW for two hours, then 1 MW of load for two hours.
    const problem: StorageProblem = {
      stepCount: 4,
      stepHours: 1,
      devices: [{ ...battery({ stepCount: 4, socAtStartMwh: 0, socMaxMwh: 2, powerMw: 1 }) }],
      inflexiblePowerMw: [-1, -1, 1, 1],
      siteConsumptionCapacityMw: null,
      siteProductionCapacityMw: null,
      consumptionPrice: constant(4, 100),
      productionPrice: constant(4, 50),
      preferChargingSooner: true,
    };
    const schedule = await solveStorage(problem);
    // Storing the PV avoids selling 2 MWh at 50 and buying 2 MWh at 100: the site stays at 0.
    expect(schedule.devices[0].powerMw.map(round6)).toEqual([1, 1, -1, -1]);
    expect(schedule.sitePowerMw.map(round6)).toEqual([0, 0, 0, 0]);
    expect(round6(schedule.totalCost)).toBe(0);
    // Without the battery: −2 MWh × 50 + 2 MWh × 100.
    const idle = await solveStorage({
      ...problem,
      devices: [{ ...problem.devices[0], consumptionCapacityMw: constant(4, 0), productionCapacityMw: constant(4, 0) }],
    });
    expect(idle.totalCost).toBeCloseTo(-2 * 50 + 2 * 100, 9);
  });

  it('adds binaries only around the steps where the LP would burn energy under negative prices', async () => {
    // Four negative hours: more than the battery needs to fill up from empty.
    const prices = [...constant(8, 40), ...constant(16, -30), ...constant(8, 60)];
    const T = prices.length;
    const problem = site([battery({ stepCount: T, socAtStartMwh: 4, roundtripEfficiency: 0.81 })], prices, null);

    // The plain LP is paid to consume: it charges and discharges at once to turn power into losses.
    const lp = buildStorageModel(problem);
    const relaxed = await highsSolver.solve(lp.model, { timeLimitSeconds: 10, mipRelGap: 1e-6 });
    if (relaxed.status !== 'optimal') throw new Error(relaxed.reason);
    const burning = Array.from(lp.index.charge[0].keys()).filter(
      (j) => relaxed.x[lp.index.charge[0][j]] > 1e-9 && relaxed.x[lp.index.discharge[0][j]] > 1e-9,
    );
    expect(burning.length).toBeGreaterThan(0);

    const schedule = await solveStorage(problem);
    expect(schedule.stats.iterations).toBeGreaterThan(1);
    expect(schedule.stats.binaries).toBeGreaterThan(0);
    expect(schedule.stats.binaries).toBeLessThan(T);
    expect(schedule.stats.objective).toBeGreaterThan(relaxed.objective);
    // With η = 0.9 each way, SoC recomputed from net power only matches when nothing is burnt.
    expect(scheduleViolations(problem, schedule)).toEqual([]);
  });

  it('handles a production price above the consumption price without buying and selling at once', async () => {
    const T = 8;
    const problem: StorageProblem = {
      ...site([battery({ stepCount: T, socAtStartMwh: 0.5, socMaxMwh: 1, powerMw: 1 })], constant(T, 50), 5),
      inflexiblePowerMw: constant(T, 0.5),
      productionPrice: [...constant(4, 80), ...constant(4, 20)],
    };
    const schedule = await solveStorage(problem);
    expect(scheduleViolations(problem, schedule)).toEqual([]);
    // Hand calculation: charge at 50 in step 0, then discharge 1 MW in steps 1–3, of which 0.5 MW
    // covers the load (saving 50/MWh) and 0.5 MW is exported at 80/MWh; the second hour imports the load.
    // 0.25 × (1.5 × 50 − 3 × 0.5 × 80 + 4 × 0.5 × 50) = 13.75.
    expect(schedule.totalCost).toBeCloseTo(13.75, 6);
    expect(schedule.stats.binaries).toBe(4);
  });

  it('schedules two devices jointly behind one site limit', async () => {
    const T = 16;
    const prices = [...constant(8, 20), ...constant(8, 120)];
    const problem = site(
      [battery({ stepCount: T, socAtStartMwh: 0, name: 'a' }), battery({ stepCount: T, socAtStartMwh: 0, name: 'b', powerMw: 1 })],
      prices,
      2.5,
    );
    const schedule = await solveStorage(problem);
    expect(scheduleViolations(problem, schedule)).toEqual([]);
    expect(Math.max(...schedule.sitePowerMw)).toBeCloseTo(2.5, 6);
  });

  it('rejects malformed problems with the reason', async () => {
    const problem = { ...site([battery({ stepCount: 4 })], constant(4, 10), null), inflexiblePowerMw: constant(3, 0) };
    await expect(solveStorage(problem)).rejects.toThrow(/inflexiblePowerMw has 3 values, expected 4/);
  });

  it('solves and verifies a 2520-step problem', async () => {
    const T = 2520;
    let seed = 7;
    const random = (): number => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const prices = Array.from({ length: T }, (_, j) => 60 + 50 * Math.sin((2 * Math.PI * j) / 96) - 40 * random());
    const device = battery({ stepCount: T, roundtripEfficiency: 0.9, storageEfficiency: 0.99999 });
    const problem: StorageProblem = {
      ...site([device], prices, 3),
      inflexiblePowerMw: Array.from({ length: T }, () => 2 * random() - 0.5),
      productionPrice: prices.map((p) => p - 5),
    };
    const schedule = await solveStorage(problem, { timeLimitSeconds: 120 });
    expect(schedule.devices[0].powerMw).toHaveLength(T);
    expect(schedule.devices[0].socMwh).toHaveLength(T + 1);
    expect(scheduleViolations(problem, schedule)).toEqual([]);
  }, 180_000);
});

describe('SchedulingError', () => {
  it('carries the kind, the reasons and a message listing them', () => {
    const error = new SchedulingError('infeasible', ['first', 'second']);
    expect(error.kind).toBe('infeasible');
    expect(error.reasons).toEqual(['first', 'second']);
    expect(error.message).toBe('The input data yields an infeasible problem:\n- first\n- second');
  });
});
