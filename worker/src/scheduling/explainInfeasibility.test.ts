import { describe, expect, it } from 'vitest';
import { explainInfeasibility } from './explainInfeasibility.ts';
import { fallbackSchedule } from './fallbackSchedule.ts';
import { SchedulingError, solveStorage } from './solveStorage.ts';
import type { StorageProblem } from './storageProblem.ts';
import { battery, constant, site } from './testFixtures.ts';

/** The example trigger of api-wire.md §9.4, shrunk: 12.1 kWh at 15:45 UTC, 25 kW, soc in kWh. */
function kwhBattery(targetKwh: number, stepCount = 1): StorageProblem {
  const targets: (number | null)[] = new Array<number | null>(stepCount).fill(null);
  targets[0] = targetKwh / 1000;
  const device = {
    ...battery({ stepCount, socAtStartMwh: 0.0121, socMinMwh: 0.01, socMaxMwh: 0.025, powerMw: 0.025 }),
    socTargetsMwh: targets,
  };
  return { ...site([device], constant(stepCount, 50), null), display: { socUnit: 'kWh', startIso: '2015-01-02T15:45:00+00:00' } };
}

describe('explainInfeasibility', () => {
  it('names an unreachable soc-target, its time and what is reachable, in the user’s units', () => {
    expect(explainInfeasibility(kwhBattery(25))).toEqual([
      'soc-target 25 kWh at 2015-01-02T16:00:00+00:00 cannot be reached: at most 18.35 kWh is reachable by then from 12.1 kWh at 25 kW',
    ]);
  });

  it('makes solveStorage fail with the same message', async () => {
    const failure = solveStorage(kwhBattery(25));
    await expect(failure).rejects.toBeInstanceOf(SchedulingError);
    await expect(failure).rejects.toThrow(/soc-target 25 kWh at 2015-01-02T16:00:00\+00:00 cannot be reached/);
    await expect(failure).rejects.toMatchObject({ kind: 'infeasible' });
  });

  it('accepts a target that is exactly reachable', () => {
    expect(explainInfeasibility(kwhBattery(18.35))).toEqual([]);
  });

  it('reports targets above soc-max and below soc-min', () => {
    const problem = kwhBattery(30, 2);
    const targets = [0.03, 0.005];
    const messages = explainInfeasibility({ ...problem, devices: [{ ...problem.devices[0], socTargetsMwh: targets }] });
    expect(messages).toContain('soc-target 30 kWh at 2015-01-02T16:00:00+00:00 is above soc-max 25 kWh');
    expect(messages).toContain('soc-target 5 kWh at 2015-01-02T16:15:00+00:00 is below soc-min 10 kWh');
  });

  it('reports minima above maxima at the same instant', () => {
    const problem = kwhBattery(12.1, 2);
    const device = { ...problem.devices[0], socTargetsMwh: null, socMinimaMwh: [null, 0.02], socMaximaMwh: [null, 0.015] };
    expect(explainInfeasibility({ ...problem, devices: [device] })).toEqual([
      'soc-minima 20 kWh at 2015-01-02T16:15:00+00:00 is above soc-maxima 15 kWh at the same time',
    ]);
  });

  it('reports a maximum the device cannot discharge down to in time, naming the binding origin', () => {
    const base = site([battery({ stepCount: 8, socAtStartMwh: 3, powerMw: 1 })], constant(8, 50), null);
    const maxima: (number | null)[] = [null, null, null, null, null, null, null, 1];
    const minima: (number | null)[] = [null, null, null, 4, null, null, null, null];
    const messages = explainInfeasibility({ ...base, devices: [{ ...base.devices[0], socMaximaMwh: maxima, socMinimaMwh: minima }] });
    // After the minimum of 4 MWh at the end of step 3, four steps of 0.25 MWh bring it down to 3 MWh at best.
    expect(messages).toEqual([
      'soc-maxima 1 MWh at the end of step 7 cannot be respected: at least 3 MWh remains by then from 4 MWh (soc-minima at the end of step 3) at 1 MW',
    ]);
  });

  it('accounts for the site limit and the inflexible load when judging reachability', () => {
    const base = site([battery({ stepCount: 4, socAtStartMwh: 0, powerMw: 2 })], constant(4, 50), 2);
    const targets: (number | null)[] = [null, null, null, 1.5];
    const problem = { ...base, inflexiblePowerMw: constant(4, 1), devices: [{ ...base.devices[0], socTargetsMwh: targets }] };
    // Only 1 MW of the 2 MW site capacity is left for charging: 4 × 0.25 MWh.
    expect(explainInfeasibility(problem)).toEqual([
      'soc-target 1.5 MWh at the end of step 3 cannot be reached: at most 1 MWh is reachable by then from 0 MWh at 1 MW',
    ]);
  });

  it('reports site limits that the inflexible load makes impossible, as one run', () => {
    const base = site([battery({ stepCount: 6, powerMw: 0.5 })], constant(6, 50), 2);
    const problem = { ...base, inflexiblePowerMw: [1, 3, 3.2, 3, 1, -3], display: { startIso: '2015-01-01T00:00:00+01:00' } };
    expect(explainInfeasibility(problem)).toEqual([
      'site consumption capacity 2 MW cannot be respected from 2015-01-01T00:15:00+01:00 until 2015-01-01T01:00:00+01:00: the inflexible load of 3.2 MW can be offset by at most 0.5 MW of storage discharging',
      'site production capacity 2 MW cannot be respected at 2015-01-01T01:15:00+01:00: the inflexible production of 3 MW can be absorbed by at most 0.5 MW of storage charging',
    ]);
  });

  it('lets the solver find joint infeasibilities and names the responsible constraint family', async () => {
    // Each battery alone could charge 1 MWh in one quarter-hour, but not both behind one 4 MW connection.
    const targets = [1];
    const devices = ['a', 'b'].map((name) => ({
      ...battery({ stepCount: 1, socAtStartMwh: 0, powerMw: 4, name }),
      socTargetsMwh: targets,
      productionCapacityMw: [4],
    }));
    const problem = site(devices, [50], 4);
    expect(explainInfeasibility(problem)).toEqual([]);
    const failure = solveStorage(problem);
    await expect(failure).rejects.toMatchObject({ kind: 'infeasible' });
    await expect(failure).rejects.toThrow(/without the site consumption\/production capacities one would exist/);
  });
});

describe('fallbackSchedule', () => {
  it('charges at full power toward an unreachable target, then idles', () => {
    const base = site([battery({ stepCount: 8, socAtStartMwh: 0.1, socMaxMwh: 1, powerMw: 1 })], constant(8, 50), null);
    const targets: (number | null)[] = [1, null, null, null, null, null, null, null];
    const problem = { ...base, devices: [{ ...base.devices[0], socTargetsMwh: targets }] };
    const schedule = fallbackSchedule(problem);
    expect(schedule.devices[0].powerMw.map((p) => Math.round(p * 1e9) / 1e9)).toEqual([1, 1, 1, 0.6, 0, 0, 0, 0]);
    expect(schedule.devices[0].socMwh[4]).toBeCloseTo(1, 9);
    expect(schedule.stats.solver).toBe('fallback');
    expect(schedule.totalCost).toBeCloseTo(0.9 * 50, 9);
  });

  it('discharges toward a maximum below the start, respecting losses and efficiency', () => {
    const base = site(
      [battery({ stepCount: 4, socAtStartMwh: 3, powerMw: 2, roundtripEfficiency: 0.81, storageEfficiency: 0.99 })],
      constant(4, 50),
      null,
    );
    const maxima: (number | null)[] = [null, null, 2, null];
    const schedule = fallbackSchedule({ ...base, devices: [{ ...base.devices[0], socMaximaMwh: maxima }] });
    const power = schedule.devices[0].powerMw;
    expect(power[0]).toBeCloseTo(-2, 9);
    expect(power[1]).toBeLessThan(0);
    expect(power[1]).toBeGreaterThan(-2);
    expect(power.slice(2)).toEqual([0, 0]);
    expect(schedule.devices[0].socMwh[2]).toBeCloseTo(2, 9);
  });

  it('charges toward soc-min when starting below it, within the site room', () => {
    const base = site([battery({ stepCount: 4, socAtStartMwh: 0, socMinMwh: 0.5, powerMw: 2 })], constant(4, 50), 1.5);
    const schedule = fallbackSchedule({ ...base, inflexiblePowerMw: constant(4, 1) });
    expect(schedule.devices[0].powerMw).toEqual([0.5, 0.5, 0.5, 0.5]);
    expect(Math.max(...schedule.sitePowerMw)).toBeLessThanOrEqual(1.5);
  });

  it('idles when nothing requires action', () => {
    const schedule = fallbackSchedule(site([battery({ stepCount: 3 })], constant(3, 50), null));
    expect(schedule.devices[0].powerMw).toEqual([0, 0, 0]);
    expect(schedule.devices[0].socMwh).toEqual([2.5, 2.5, 2.5, 2.5]);
  });
});
