import { describe, expect, it } from 'vitest';
import { formatInstant } from './messageFormat.ts';
import { socSeries, socStepForInstant, structuralErrors } from './storageProblem.ts';
import { battery, constant, site } from './testFixtures.ts';

const start = Date.parse('2015-01-02T00:00:00Z');
const quarter = 15 * 60_000;

describe('socStepForInstant', () => {
  it('maps an instant onto the step it ends: j = (t − t0)/Δ − 1', () => {
    expect(socStepForInstant(start, quarter, 96, start + quarter)).toBe(0);
    expect(socStepForInstant(start, quarter, 96, Date.parse('2015-01-02T16:00:00Z'))).toBe(63);
    expect(socStepForInstant(start, quarter, 96, start + 96 * quarter)).toBe(95);
  });

  it('drops the start itself, instants outside the horizon and instants before the first step ends', () => {
    expect(socStepForInstant(start, quarter, 96, start)).toBeNull();
    expect(socStepForInstant(start, quarter, 96, start + 97 * quarter)).toBeNull();
    expect(socStepForInstant(start, quarter, 96, start + 60_000)).toBeNull();
  });

  it('binds an instant between grid points to the step that ends at or before it (07:05 → the step ending 07:00)', () => {
    expect(socStepForInstant(start, quarter, 96, Date.parse('2015-01-02T07:05:00Z'))).toBe(27);
    expect(socStepForInstant(start, quarter, 96, start + quarter + 14 * 60_000)).toBe(0);
  });
});

describe('socSeries', () => {
  it('expands windows (both ends inclusive) and combines overlaps', () => {
    const minima = socSeries(
      start,
      quarter,
      8,
      [
        { valueMwh: 1, startMs: start + 2 * quarter, endMs: start + 4 * quarter },
        { valueMwh: 2, atMs: start + 3 * quarter },
      ],
      'max',
    );
    expect(minima).toEqual([null, 1, 2, 1, null, null, null, null]);
    const targets = socSeries(
      start,
      quarter,
      8,
      [
        { valueMwh: 1, atMs: start + quarter },
        { valueMwh: 3, atMs: start + quarter },
      ],
      'last',
    );
    expect(targets?.[0]).toBe(3);
    expect(socSeries(start, quarter, 8, [{ valueMwh: 1, atMs: start }], 'min')).toBeNull();
  });
});

describe('structuralErrors', () => {
  it('accepts a well-formed problem and lists what is wrong with a broken one', () => {
    const problem = site([battery({ stepCount: 4 })], constant(4, 10), 2);
    expect(structuralErrors(problem)).toEqual([]);
    const broken = {
      ...problem,
      devices: [{ ...problem.devices[0], storageEfficiency: [1, 1, 1.2, 1], consumptionCapacityMw: [1, -1, 1, 1] }],
    };
    expect(structuralErrors(broken)).toEqual([
      'devices[0].consumptionCapacityMw[1] = -1 must be finite and ≥ 0',
      'devices[0].storageEfficiency[2] = 1.2 must be in (0, 1]',
    ]);
  });
});

describe('formatInstant', () => {
  it('writes instants in the offset of the start, Python-style', () => {
    const problem = { ...site([battery({ stepCount: 96 })], constant(96, 1), null), display: { startIso: '2015-01-01T23:00:00Z' } };
    expect(formatInstant(problem, 4)).toBe('2015-01-02T00:00:00+00:00');
    const amsterdam = { ...problem, display: { startIso: '2015-01-02T00:00:00+01:00' } };
    expect(formatInstant(amsterdam, 64)).toBe('2015-01-02T16:00:00+01:00');
    expect(formatInstant({ ...problem, display: undefined }, 5)).toBe('the end of step 4');
  });
});
