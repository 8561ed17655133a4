import { describe, expect, it } from 'vitest';
import { flexContext } from '../../server/src/contracts/flexModel.ts';
import { commitmentPriceKind, commitmentsOf } from '../../server/src/scheduling/flexConfig/commitments.ts';
import { parseFlex } from '../../server/src/scheduling/flexConfig/fields.ts';
import { softConstraintsOf } from '../../server/src/scheduling/flexConfig/softConstraints.ts';
import { HOUR_MS, QUARTER_MS, refusal, resolving } from '../helpers/flexConfig.ts';

// Breach prices as FlexMeasures 1.0 fills them in when relaxation is on (its scheduler documentation):
// SoC 1000 per kWh, site capacities 10000 per kW, device capacities 100 per kW (only when asked).
// Per MWh and per MW: 1000 × 1000 = 10⁶, 10000 × 1000 = 10⁷, 100 × 1000 = 10⁵.

const where = resolving('2026-06-01T00:00:00Z', 4);
const soft = (context: Record<string, unknown>, apiCompat: '0.18' | '1.0' = '1.0', sitePower = { fixed: 2 }) =>
  softConstraintsOf(where, { apiCompat }, parseFlex(flexContext, context), sitePower);

describe('breach prices', () => {
  it('are filled in for a 1.0 request in the 1.0 dialect, with the site power capacity kept hard behind them', async () => {
    expect(await soft({ 'consumption-price': '100 EUR/MWh' })).toEqual({
      breachPrices: { socMinima: 1e6, socMaxima: 1e6, siteConsumption: 1e7, siteProduction: 1e7 },
      sitePowerCapacityMw: { fixed: 2 },
    });
    expect(await soft({ 'consumption-price': '100 EUR/MWh', 'relax-capacity-constraints': true })).toMatchObject({
      breachPrices: { consumption: 1e5, production: 1e5 },
    });
  });

  it('are absent in the 0.18 dialect and for a request that does not speak 1.0, so constraints stay hard', async () => {
    expect(await soft({ 'consumption-price': '100 EUR/MWh' }, '0.18')).toEqual({});
    expect(await soft({ 'consumption-price-sensor': 3 })).toEqual({});
  });

  it('follow each relax flag, and never overwrite a price given: 5 EUR/kWh = 5000 EUR/MWh, 20 EUR/kW = 20000 EUR/MW', async () => {
    const context = {
      'consumption-price': '100 EUR/MWh',
      'relax-soc-constraints': false,
      'soc-minima-breach-price': '5 EUR/kWh',
      'site-consumption-breach-price': '20 EUR/kW',
    };
    expect(await soft(context)).toEqual({
      breachPrices: { socMinima: expect.closeTo(5000, 6), siteConsumption: expect.closeTo(20_000, 6), siteProduction: 1e7 },
      sitePowerCapacityMw: { fixed: 2 },
    });
  });

  it('refuse a negative breach price under its field', async () => {
    expect(await refusal(() => soft({ 'site-consumption-breach-price': '-1 EUR/kW' }))).toEqual({
      'site-consumption-breach-price': ['Must be greater than or equal to 0.'],
    });
  });
});

describe('demand charges', () => {
  it('price the peak above the threshold per MW: 15 EUR/kW = 15000 EUR/MW above 100 kW = 0.1 MW', async () => {
    const context = {
      'site-peak-consumption-price': '15 EUR/kW',
      'site-peak-consumption': '100 kW',
      'site-peak-production-price': '1 EUR/kW',
    };
    expect(await soft(context, '0.18')).toEqual({
      sitePeakConsumption: { thresholdMw: { fixed: expect.closeTo(0.1, 12) }, price: expect.closeTo(15_000, 6) },
      // No threshold given: every MW of the peak counts.
      sitePeakProduction: { thresholdMw: { fixed: 0 }, price: expect.closeTo(1000, 9) },
    });
  });
});

describe('commitments', () => {
  it('price deviations per MW and step: per MWh times the step length (10 EUR/MWh × 0.25 h = 2.5), per kW times 1000', async () => {
    const quarter = commitmentPriceKind('up-price', QUARTER_MS);
    expect(quarter.read('commitments.0.up-price', '10 EUR/MWh')).toBeCloseTo(2.5, 12);
    expect(commitmentPriceKind('up-price', HOUR_MS).read('commitments.0.up-price', '10 EUR/MWh')).toBeCloseTo(10, 12);
    expect(quarter.read('commitments.0.up-price', '5 EUR/kW')).toBeCloseTo(5000, 9);
    for (const bad of ['5 EUR', '5 EUR/kg']) {
      expect(await refusal(() => quarter.read('commitments.0.up-price', bad))).toEqual({
        commitments: { 0: { 'up-price': ['Commitment up-price must have a power or energy unit in its denominator.'] } },
      });
    }
  });

  it('resolve a baseline in MW and both prices, an absent price as zero', async () => {
    const context = parseFlex(flexContext, {
      commitments: [
        { name: 'contract', baseline: '500 kW', 'up-price': '10 EUR/MWh', 'down-price': '8 EUR/MWh' },
        { name: 'cap', baseline: '1 MW', 'up-price': '40 EUR/kW' },
      ],
    });
    expect(await commitmentsOf(where, context, new Set())).toEqual({
      commitments: [
        // 8 EUR/MWh × 0.25 h = 2 EUR/MW per step.
        {
          name: 'contract',
          baselineMw: { fixed: expect.closeTo(0.5, 12) },
          upPrice: { fixed: 2.5 },
          downPrice: { fixed: 2 },
          scopeSensorIds: null,
        },
        {
          name: 'cap',
          baselineMw: { fixed: 1 },
          upPrice: { fixed: expect.closeTo(40_000, 6) },
          downPrice: { fixed: 0 },
          scopeSensorIds: null,
        },
      ],
    });
    expect(await commitmentsOf(where, parseFlex(flexContext, {}), new Set())).toEqual({});
  });

  it('refuse an up-price below the down-price, a baseline that is not a power, and electrical groups', async () => {
    const one = (c: Record<string, unknown>) =>
      commitmentsOf(where, parseFlex(flexContext, { commitments: [{ name: 'c', ...c }] }), new Set());
    expect(await refusal(() => one({ baseline: '0 MW', 'up-price': '5 EUR/MWh', 'down-price': '8 EUR/MWh' }))).toEqual({
      commitments: {
        0: { 'up-price': ['The up-price must not be below the down-price (a non-convex cost, which Flexsite does not schedule).'] },
      },
    });
    expect(await refusal(() => one({ baseline: '5 kWh', 'up-price': '5 EUR/MWh' }))).toEqual({
      commitments: { 0: { baseline: ['Commitment baseline must have a power unit.'] } },
    });
    expect(await refusal(() => one({ baseline: '0 MW', 'up-price': '5 EUR/MWh', group: { name: 'g' } }))).toMatchObject({
      commitments: { 0: { group: [expect.stringMatching(/^Commitments scoped by an electrical group are not supported yet/)] } },
    });
  });
});
