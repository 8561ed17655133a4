import { describe, expect, it } from 'vitest';
import { buildStorageModel, stockBoundsMwh, tieBreakerWeight, twoWaySteps } from './lpModel.ts';
import { integrateSocMwh, lossCoefficients, nextSocMwh, powerToReachMw } from './socDynamics.ts';
import { battery, constant, site } from './testFixtures.ts';

describe('buildStorageModel', () => {
  it('is O(T): a fixed number of columns, rows and nonzeros per step', () => {
    const sizes = [96, 2520].map((T) => buildStorageModel(site([battery({ stepCount: T })], constant(T, 10), 2)).model);
    for (const [model, T] of [
      [sizes[0], 96],
      [sizes[1], 2520],
    ] as const) {
      expect(model.columnCount).toBe(3 * T);
      expect(model.rowCount).toBe(2 * T);
      // Stock row: 4 entries (3 at j = 0), site row: 2.
      expect(model.rowStarts[model.rowCount]).toBe(6 * T - 1);
    }
  });

  it('adds import/export columns only when the production price differs', () => {
    const single = buildStorageModel(site([battery({ stepCount: 4 })], constant(4, 10), 2));
    expect(single.index.siteImport).toBeNull();
    const split = buildStorageModel({ ...site([battery({ stepCount: 4 })], constant(4, 10), 2), productionPrice: constant(4, 5) });
    expect(split.index.siteImport).not.toBeNull();
    expect(split.index.binaryCount).toBe(0);
    expect(split.model.columnCount).toBe(3 * 4 + 2 * 4);
  });

  it('puts binaries only on requested steps where the device can go both ways', () => {
    const device = { ...battery({ stepCount: 4 }), productionCapacityMw: [2, 0, 2, 2] };
    const problem = site([device], constant(4, 10), null);
    expect(twoWaySteps(problem, 0)).toEqual([0, 2, 3]);
    const { model, index } = buildStorageModel(problem, [new Set([0, 1, 3])]);
    expect(index.binaryCount).toBe(2);
    expect(Array.from(index.sign[0])).toEqual([expect.any(Number), -1, -1, expect.any(Number)]);
    expect(model.columnInteger.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('states a demand charge on one peak column per run of equal thresholds, one row per step', () => {
    const T = 6;
    const base = site([battery({ stepCount: T })], constant(T, 10), null);
    const plain = buildStorageModel(base).model;
    const { model, index } = buildStorageModel({
      ...base,
      sitePeakConsumption: { thresholdMw: [1, 1, 1, 2, 2, 2], price: constant(T, 100) },
    });
    // Only the height is priced, so no per-step breach column sits between the site power and the peak.
    expect(model.columnCount - plain.columnCount).toBe(2);
    expect(model.rowCount - plain.rowCount).toBe(T);
    expect(index.priced).toEqual([
      {
        name: 'consumption peak',
        terms: [
          [expect.any(Number), 100],
          [expect.any(Number), 100],
        ],
      },
    ]);
  });

  it('merges targets, minima, maxima and soc-min/max into stock bounds', () => {
    const device = {
      ...battery({ stepCount: 3, socMinMwh: 0.5, socMaxMwh: 4 }),
      socMinimaMwh: [1, null, null],
      socMaximaMwh: [null, 3, null],
      socTargetsMwh: [null, null, 2],
    };
    const problem = site([device], constant(3, 10), null);
    expect([0, 1, 2].map((j) => stockBoundsMwh(problem, 0, j))).toEqual([
      [1, 4],
      [0.5, 3],
      [2, 2],
    ]);
  });

  it('scales the tie-breaker with the price spread, far below a price difference', () => {
    const problem = site([battery({ stepCount: 96 })], [...constant(48, 90), ...constant(48, 100)], null);
    expect(tieBreakerWeight(problem)).toBeCloseTo((1e-4 * 10) / 96 / 0.25, 15);
  });
});

describe('SoC dynamics (linear loss model)', () => {
  it('four quarter-hours at e equal one hour at e⁴', () => {
    const e = 0.97;
    const quarter = { ...battery({ stepCount: 4, storageEfficiency: e, roundtripEfficiency: 0.81 }), stockDeltaMw: constant(4, 0.1) };
    const hour = { ...battery({ stepCount: 1, storageEfficiency: e ** 4, roundtripEfficiency: 0.81 }), stockDeltaMw: [0.1] };
    const quarterly = integrateSocMwh(quarter, constant(4, 1.5), 0.25);
    const hourly = integrateSocMwh(hour, [1.5], 1);
    expect(quarterly[4]).toBeCloseTo(hourly[1], 12);
  });

  it('is lossless at e = 1 and inverts exactly', () => {
    expect(lossCoefficients(1)).toEqual({ a: 1, b: 1 });
    const device = battery({ stepCount: 1, storageEfficiency: 0.9, roundtripEfficiency: 0.64 });
    for (const target of [1, 2.5, 4]) {
      const power = powerToReachMw(device, 0, 2.5, target, 0.25);
      expect(nextSocMwh(device, 0, 2.5, power, 0.25)).toBeCloseTo(target, 12);
    }
  });
});
