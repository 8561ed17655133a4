import { describe, expect, it } from 'vitest';
import { scheduleProcess, type ProcessProblem } from './processScheduler.ts';

const prices = [5, 4, 3, 9, 1, 1, 8, 2];
const none = prices.map(() => false);
const problem = (overrides: Partial<ProcessProblem>): ProcessProblem => ({
  processType: 'SHIFTABLE',
  consumptionPrice: prices,
  forbidden: none,
  powerMw: 0.5,
  durationSteps: 2,
  stepHours: 1,
  ...overrides,
});

describe('scheduleProcess', () => {
  it('INFLEXIBLE starts at the first allowed step and runs without interruption', () => {
    const forbidden = [true, false, false, true, false, false, false, false];
    const schedule = scheduleProcess(problem({ processType: 'INFLEXIBLE', forbidden, durationSteps: 3 }));
    expect(schedule.powerMw).toEqual([0, 0.5, 0.5, 0.5, 0, 0, 0, 0]);
    expect(schedule.totalCost).toBeCloseTo(0.5 * (4 + 3 + 9), 9);
  });

  it('INFLEXIBLE is cut off at the end of the horizon', () => {
    const forbidden = [true, true, true, true, true, true, false, false];
    expect(scheduleProcess(problem({ processType: 'INFLEXIBLE', forbidden, durationSteps: 4 })).powerMw).toEqual([
      0, 0, 0, 0, 0, 0, 0.5, 0.5,
    ]);
  });

  it('SHIFTABLE picks the cheapest contiguous block (MIN)', () => {
    expect(scheduleProcess(problem({})).powerMw).toEqual([0, 0, 0, 0, 0.5, 0.5, 0, 0]);
  });

  it('SHIFTABLE picks the dearest contiguous block (MAX)', () => {
    // Block sums 9, 7, 12, 10, 2, 9, 10: steps 2–3.
    expect(scheduleProcess(problem({ optimizationSense: 'MAX' })).powerMw).toEqual([0, 0, 0.5, 0.5, 0, 0, 0, 0]);
  });

  it('SHIFTABLE skips blocks touching forbidden steps and prefers the earliest of equal blocks', () => {
    const forbidden = [false, false, false, false, true, false, false, false];
    // Blocks not touching step 4: sums 9, 7, 12, (x), (x), 9, 10 → steps 1–2.
    expect(scheduleProcess(problem({ forbidden })).powerMw).toEqual([0, 0.5, 0.5, 0, 0, 0, 0, 0]);
    const flat = scheduleProcess(problem({ consumptionPrice: prices.map(() => 7) }));
    expect(flat.powerMw).toEqual([0.5, 0.5, 0, 0, 0, 0, 0, 0]);
  });

  it('BREAKABLE takes the cheapest allowed steps in any order, earliest first among equals', () => {
    const forbidden = [false, false, false, false, false, true, false, false];
    const schedule = scheduleProcess(problem({ processType: 'BREAKABLE', forbidden, durationSteps: 3 }));
    // Cheapest allowed: step 4 (1), step 7 (2), step 2 (3).
    expect(schedule.powerMw).toEqual([0, 0, 0.5, 0, 0.5, 0, 0, 0.5]);
    expect(schedule.totalCost).toBeCloseTo(0.5 * (1 + 2 + 3), 9);
  });

  it('BREAKABLE with MAX takes the dearest steps', () => {
    expect(scheduleProcess(problem({ processType: 'BREAKABLE', optimizationSense: 'MAX' })).powerMw).toEqual([0, 0, 0, 0.5, 0, 0, 0.5, 0]);
  });

  it('fails clearly when the process cannot be placed', () => {
    const forbidden = [false, true, false, true, false, true, false, true];
    expect(() => scheduleProcess(problem({ forbidden }))).toThrow(
      'no run of 2 consecutive allowed steps fits in the 8 steps of the schedule',
    );
    expect(() => scheduleProcess(problem({ processType: 'BREAKABLE', forbidden, durationSteps: 5 }))).toThrow(
      'the process needs 5 steps but only 4 are allowed by the time restrictions',
    );
    expect(() => scheduleProcess(problem({ processType: 'INFLEXIBLE', forbidden: prices.map(() => true) }))).toThrow(
      /every step is excluded/,
    );
    expect(() => scheduleProcess(problem({ forbidden: [false] }))).toThrow(/forbidden has 1 flags for 8 price steps/);
  });

  it('a zero duration never runs', () => {
    expect(scheduleProcess(problem({ durationSteps: 0 })).powerMw).toEqual(prices.map(() => 0));
  });
});
