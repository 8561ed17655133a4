/**
 * Soft constraints, demand charges and commitments of the storage scheduler, on hand-checked
 * cases: one battery, hourly steps, so a breach of 1 MWh (or 1 MW) priced P costs P on its
 * height plus P·1 h on its area, 2P in all.
 */
import { describe, expect, it } from 'vitest';
import { solveStorage } from '../../worker/src/scheduling/solveStorage.ts';
import { yalpsSolver } from '../../worker/src/scheduling/solvers/yalps.ts';
import type { DeviceBreachPrices, StorageDevice, StorageProblem } from '../../worker/src/scheduling/storageProblem.ts';

const fill = (T: number, v: number) => new Array<number>(T).fill(v);

function device(T: number, over: Partial<StorageDevice> = {}): StorageDevice {
  return {
    name: 'battery',
    socAtStartMwh: 0,
    socMinMwh: 0,
    socMaxMwh: 10,
    socMinimaMwh: null,
    socMaximaMwh: null,
    socTargetsMwh: null,
    consumptionCapacityMw: fill(T, 1),
    productionCapacityMw: fill(T, 1),
    chargingEfficiency: fill(T, 1),
    dischargingEfficiency: fill(T, 1),
    storageEfficiency: fill(T, 1),
    stockDeltaMw: null,
    ...over,
  };
}

function problem(prices: number[], d: StorageDevice, over: Partial<StorageProblem> = {}): StorageProblem {
  const T = prices.length;
  return {
    stepCount: T,
    stepHours: 1,
    devices: [d],
    inflexiblePowerMw: fill(T, 0),
    siteConsumptionCapacityMw: null,
    siteProductionCapacityMw: null,
    consumptionPrice: prices,
    productionPrice: null,
    preferChargingSooner: false,
    ...over,
  };
}

const breach = (T: number, prices: Partial<Record<keyof DeviceBreachPrices, number>>): DeviceBreachPrices =>
  Object.fromEntries(Object.entries(prices).map(([k, v]) => [k, fill(T, v)]));

describe('soft SoC minima', () => {
  // 3 MWh wanted after 2 h of charging at most 1 MW, energy at 100/MWh: unreachable.
  const minima = [null, 3];
  it('are infeasible without a breach price', async () => {
    await expect(solveStorage(problem([100, 100], device(2, { socMinimaMwh: minima })))).rejects.toThrow(/infeasible/);
  });
  it('a cheap breach (2·40 = 80 < 100 per MWh) leaves the battery idle', async () => {
    const s = await solveStorage(problem([100, 100], device(2, { socMinimaMwh: minima, breach: breach(2, { socMinima: 40 }) })));
    expect(s.devices[0].powerMw.map((p) => Math.abs(p))).toEqual([0, 0]);
    expect(s.commitmentCosts?.['soc minima breach battery']).toBeCloseTo(3 * 80, 6);
  });
  it('a dear breach (2·60 = 120 > 100 per MWh) charges all it can and pays for the last MWh', async () => {
    const s = await solveStorage(problem([100, 100], device(2, { socMinimaMwh: minima, breach: breach(2, { socMinima: 60 }) })));
    expect(s.devices[0].powerMw.map((p) => +p.toFixed(9))).toEqual([1, 1]);
    expect(s.commitmentCosts?.['soc minima breach battery']).toBeCloseTo(120, 6);
    expect(s.totalCost).toBeCloseTo(200, 6);
  });
  it('the yalps cross-check agrees', async () => {
    const p = problem([100, 100], device(2, { socMinimaMwh: minima, breach: breach(2, { socMinima: 60 }) }));
    const [a, b] = [await solveStorage(p), await solveStorage(p, { solver: yalpsSolver })];
    expect(b.stats.objective).toBeCloseTo(a.stats.objective!, 6);
  });
});

describe('soft SoC maxima', () => {
  // Start at 5 MWh, at most 4 MWh after 2 h; producing costs 20/MWh (negative feed-in price).
  const run = (price: number) =>
    solveStorage(
      problem([100, 100], device(2, { socAtStartMwh: 5, socMaximaMwh: [null, 4], breach: breach(2, { socMaxima: price }) }), {
        productionPrice: [-20, -20],
      }),
    );
  it('a cheap breach (2·5 = 10 < 20) keeps the excess', async () => {
    const s = await run(5);
    expect(s.devices[0].socMwh[2]).toBeCloseTo(5, 6);
    expect(s.commitmentCosts?.['soc maxima breach battery']).toBeCloseTo(10, 6);
  });
  it('a dear breach (2·15 = 30 > 20) discharges the excess', async () => {
    const s = await run(15);
    expect(s.devices[0].socMwh[2]).toBeCloseTo(4, 6);
    expect(s.totalCost).toBeCloseTo(20, 6);
  });
});

describe('soft device capacities', () => {
  // 3 MWh needed after 1 h with a 1 MW consumption capacity (3 MW power capacity); a missing MWh costs 2·100.
  const run = (price: number) =>
    solveStorage(
      problem(
        [100],
        device(1, {
          socMinimaMwh: [3],
          consumptionCapacityMw: [1],
          breach: { ...breach(1, { socMinima: 100, consumption: price }), powerCapacityMw: [3] },
        }),
      ),
    );
  it('a cheap capacity breach (100 + 2·40 < 200 per MW) charges at the power capacity', async () => {
    const s = await run(40);
    expect(s.devices[0].powerMw[0]).toBeCloseTo(3, 6);
    expect(s.commitmentCosts?.['consumption breach battery']).toBeCloseTo(2 * 80, 6);
  });
  it('a dear capacity breach (100 + 2·60 > 200 per MW) stays at the capacity', async () => {
    const s = await run(60);
    expect(s.devices[0].powerMw[0]).toBeCloseTo(1, 6);
    expect(s.commitmentCosts?.['soc minima breach battery']).toBeCloseTo(2 * 200, 6);
  });
  it('the power capacity stays hard', async () => {
    const s = await run(0);
    expect(s.devices[0].powerMw[0]).toBeCloseTo(3, 6);
  });
  it('a capacity that is zero throughout stays strictly zero (a one-way charger never discharges)', async () => {
    // Selling at 500 would pay for any breach price of 10, yet the zero production capacity holds.
    const s = await solveStorage(
      problem(
        [100, 100],
        device(2, {
          socAtStartMwh: 5,
          productionCapacityMw: [0, 0],
          breach: { ...breach(2, { production: 10 }), powerCapacityMw: [3, 3] },
        }),
        { productionPrice: [500, 500], consumptionPrice: [600, 600] },
      ),
    );
    expect(s.devices[0].powerMw.every((p) => p >= -1e-9)).toBe(true);
  });
});

describe('soft site capacities', () => {
  // The battery needs 2 MWh after 1 h; the site allows 1 MW; a missing MWh costs 2·100.
  const run = (price: number) =>
    solveStorage(
      problem([100], device(1, { consumptionCapacityMw: [3], socMinimaMwh: [2], breach: breach(1, { socMinima: 100 }) }), {
        siteConsumptionCapacityMw: [1],
        sitePowerCapacityMw: [5],
        siteBreach: { consumption: [price] },
      }),
    );
  it('a cheap site breach (100 + 2·40 < 200) imports beyond the site capacity', async () => {
    const s = await run(40);
    expect(s.sitePowerMw[0]).toBeCloseTo(2, 6);
    expect(s.commitmentCosts?.['consumption breach']).toBeCloseTo(80, 6);
  });
  it('a dear site breach (100 + 2·60 > 200) keeps to it', async () => {
    const s = await run(60);
    expect(s.sitePowerMw[0]).toBeCloseTo(1, 6);
  });
  it('the site power capacity stays hard', async () => {
    await expect(
      solveStorage(
        problem([100], device(1, { consumptionCapacityMw: [3], socMinimaMwh: [2] }), {
          siteConsumptionCapacityMw: [1],
          sitePowerCapacityMw: [1.5],
          siteBreach: { consumption: [0] },
        }),
      ),
    ).rejects.toThrow(/infeasible/);
  });
  it('a production breach is priced the same way', async () => {
    // Selling 2 MWh at 100 with a 1 MW production capacity: the second MW earns 100 but costs 2·60.
    const s = await solveStorage(
      problem([100], device(1, { socAtStartMwh: 5, productionCapacityMw: [3] }), {
        siteProductionCapacityMw: [1],
        siteBreach: { production: [60] },
      }),
    );
    expect(s.sitePowerMw[0]).toBeCloseTo(-1, 6);
  });
});

describe('demand charges', () => {
  // 2 MWh needed after 2 h, prices 100 then 50.
  const run = (peakPrice: number) =>
    solveStorage(
      problem([100, 50], device(2, { consumptionCapacityMw: [2, 2], socMinimaMwh: [null, 2] }), {
        sitePeakConsumption: { thresholdMw: [0, 0], price: [peakPrice, peakPrice] },
      }),
    );
  it('a low peak price (100 + 2·40 < 150 + 40) keeps charging in the cheap hour', async () => {
    const s = await run(40);
    expect(s.devices[0].powerMw.map((p) => +p.toFixed(6))).toEqual([0, 2]);
  });
  it('a high peak price (100 + 2·60 > 150 + 60) cuts the peak in half', async () => {
    const s = await run(60);
    expect(s.devices[0].powerMw.map((p) => +p.toFixed(6))).toEqual([1, 1]);
    expect(s.commitmentCosts?.['consumption peak']).toBeCloseTo(60, 6);
  });
  it('an earlier peak is a sunk cost', async () => {
    const s = await solveStorage(
      problem([100, 50], device(2, { consumptionCapacityMw: [2, 2], socMinimaMwh: [null, 2] }), {
        sitePeakConsumption: { thresholdMw: [2, 2], price: [60, 60] },
      }),
    );
    expect(s.devices[0].powerMw.map((p) => +p.toFixed(6))).toEqual([0, 2]);
  });
});

describe('commitments', () => {
  it('prices deviations from the baseline both ways and reports the cost by name', async () => {
    const commitment = (price: number) => ({
      name: 'contract',
      baselineMw: [1, 1],
      upPrice: [price, price],
      downPrice: [-price, -price],
      devices: null,
    });
    const p = (price: number) =>
      problem([100, 50], device(2, { consumptionCapacityMw: [2, 2], socMinimaMwh: [null, 2] }), { commitments: [commitment(price)] });
    // Charging 2 MW in the cheap hour deviates 1 MW down then 1 MW up: 2·price against 50 saved.
    const cheap = await solveStorage(p(20));
    expect(cheap.devices[0].powerMw.map((v) => +v.toFixed(6))).toEqual([0, 2]);
    expect(cheap.commitmentCosts?.contract).toBeCloseTo(40, 6);
    expect(cheap.commitmentCosts?.energy).toBeCloseTo(100, 6);
    const dear = await solveStorage(p(30));
    expect(dear.devices[0].powerMw.map((v) => +v.toFixed(6))).toEqual([1, 1]);
    expect(dear.commitmentCosts?.contract).toBeCloseTo(0, 6);
  });
  it('refuses a commitment whose up-price is below its down-price', async () => {
    const c = { name: 'odd', baselineMw: [0], upPrice: [1], downPrice: [2], devices: null };
    await expect(solveStorage(problem([100], device(1), { commitments: [c] }))).rejects.toThrow(/up-price must not be below/);
  });
});
