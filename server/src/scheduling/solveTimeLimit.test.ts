import { describe, expect, it } from 'vitest';
import { solveTimeLimitSeconds } from './solveTimeLimit.ts';

describe('the solver time limit', () => {
  it('is 10 ms per step and device, at least 10 s and at most 120 s', () => {
    // A day of 15-minute steps of one battery: the floor.
    expect(solveTimeLimitSeconds(96, 1)).toBe(10);
    // The longest schedule (2520 steps) of one device: 25.2 s, not the 120 s every solve once got.
    expect(solveTimeLimitSeconds(2520, 1)).toBeCloseTo(25.2, 9);
    // Of three devices: 75.6 s.
    expect(solveTimeLimitSeconds(2520, 3)).toBeCloseTo(75.6, 9);
    // Of ten devices: the cap.
    expect(solveTimeLimitSeconds(2520, 10)).toBe(120);
  });
});
