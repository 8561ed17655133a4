import { describe, expect, it } from 'vitest';
import { flexContext, variableQuantity } from '../../server/src/contracts/flexModel.ts';
import { parseFlex } from '../../server/src/scheduling/flexConfig/fields.ts';
import {
  capacityAttributeMw,
  fixedPrice,
  fractionOf,
  nonNegative,
  priceIn,
  quantityIn,
  seriesOf,
  uncoveredAt,
} from '../../server/src/scheduling/flexConfig/quantities.ts';
import { priceOf, siteCapacity, tighter } from '../../server/src/scheduling/flexConfig/sitePrices.ts';
import { at, refusal, resolving, sensor } from '../helpers/flexConfig.ts';

// Resolution below HTTP: each value is worked out by hand in the test (1 MW = 1000 kW = 10⁶ W,
// 1 MWh = 1000 kWh), never read back from the code.

describe('quantities in a wanted unit', () => {
  const power = quantityIn('MW', 'MW', 'first');

  it('convert power: 500 kW = 0.5 MW, 2500 W = 0.0025 MW, a bare number is in the default unit', () => {
    expect(power.read('power-capacity', '500 kW')).toBeCloseTo(0.5, 12);
    expect(power.read('power-capacity', '2500 W')).toBeCloseTo(0.0025, 12);
    expect(power.read('power-capacity', '2 MW')).toBe(2);
    expect(power.read('power-capacity', 0.3)).toBe(0.3);
  });

  it('convert energy both ways: 40 kWh = 0.04 MWh, 0.5 MWh = 500 kWh, 1 kWh = 0.001 MWh', () => {
    expect(quantityIn('MWh', 'kWh', 'first').read('soc-max', 40)).toBeCloseTo(0.04, 12);
    expect(quantityIn('kWh', 'kWh', 'first').read('soc-max', '0.5 MWh')).toBeCloseTo(500, 9);
    expect(quantityIn('MWh', 'MWh', 'first').read('soc-max', '1 kWh')).toBeCloseTo(0.001, 12);
  });

  it('refuse an energy where a power is wanted, and a negative where none may be, under the field', async () => {
    expect(await refusal(() => power.read('power-capacity', '5 kWh'))).toEqual({
      'power-capacity': [expect.stringMatching(/^Cannot convert value `5 kWh`/)],
    });
    const capacity = quantityIn('MW', 'dimensionless', 'min', nonNegative);
    // marshmallow's Range message, which FlexMeasures answers for a negative capacity.
    expect(await refusal(() => capacity.read('site-power-capacity', '-1 kW'))).toEqual({
      'site-power-capacity': ['Must be greater than or equal to 0.'],
    });
  });

  it('read a fraction as a ratio or a percentage: 98% = 0.98, and (0, 1] only', async () => {
    expect(fractionOf('roundtrip-efficiency', '98%')).toBeCloseTo(0.98, 12);
    expect(fractionOf('roundtrip-efficiency', 0.98)).toBe(0.98);
    expect(fractionOf('roundtrip-efficiency', '100%')).toBe(1);
    // FlexMeasures 0.18's message for a roundtrip efficiency outside (0, 1].
    for (const outside of ['150%', 0, 1.01]) {
      expect(await refusal(() => fractionOf('roundtrip-efficiency', outside))).toEqual({
        'roundtrip-efficiency': ['Must be greater than 0 and less than or equal to 1.'],
      });
    }
  });

  it('read a sensor into the wanted unit when its unit converts, and refuse one that does not', async () => {
    expect(power.sensorUnit('power-capacity', sensor({ unit: 'kW' }))).toBe('MW');
    expect(await refusal(() => power.sensorUnit('power-capacity', sensor({ unit: 'EUR/MWh' })))).toEqual({
      'power-capacity': ['Cannot convert EUR/MWh to MW'],
    });
  });

  it('take a capacity attribute as MW, or as a quantity with its unit; anything else counts as absent', () => {
    expect(capacityAttributeMw(0.5)).toBe(0.5);
    expect(capacityAttributeMw('8 MW')).toBe(8);
    expect(capacityAttributeMw('800 kW')).toBeCloseTo(0.8, 12);
    expect(capacityAttributeMw('lots')).toBeUndefined();
    expect(capacityAttributeMw(Number.NaN)).toBeUndefined();
  });
});

describe('prices', () => {
  it('per MWh: 100 EUR/MWh stays 100; 0.25 EUR/kWh × 1000 kWh/MWh = 250 EUR/MWh; the currency is kept', () => {
    expect(fixedPrice('consumption-price', '100 EUR/MWh', 'MWh')).toBe(100);
    expect(fixedPrice('consumption-price', '0.25 EUR/kWh', 'MWh')).toBeCloseTo(250, 9);
    expect(fixedPrice('consumption-price', '30 KRW/kWh', 'MWh')).toBeCloseTo(30_000, 6);
  });

  it('per MW: 10 EUR/kW × 1000 kW/MW = 10000 EUR/MW', () => {
    expect(fixedPrice('site-peak-consumption-price', '10 EUR/kW', 'MW')).toBeCloseTo(10_000, 6);
  });

  it('refuse a price without a currency per unit', async () => {
    expect(await refusal(() => fixedPrice('consumption-price', '100', 'MWh'))).toEqual({
      'consumption-price': ['Cannot convert value `100` to a price per MWh'],
    });
  });

  it('read a price sensor in its own currency per MWh', () => {
    expect(priceIn('MWh').sensorUnit('consumption-price', sensor({ unit: 'EUR/kWh' }))).toBe('EUR/MWh');
    expect(priceIn('MW').sensorUnit('site-peak-consumption-price', sensor({ unit: 'EUR/kW' }))).toBe('EUR/MW');
  });

  it('take the 1.0 consumption price before the market sensor, and none without either', async () => {
    const where = resolving('2026-06-01T00:00:00Z', 4);
    const context = parseFlex(flexContext, { 'consumption-price': '0.3 EUR/kWh' });
    // 0.3 EUR/kWh × 1000 kWh/MWh = 300 EUR/MWh.
    const price = await priceOf(where, context, 'consumption', 7);
    expect(price).toEqual({ fixed: expect.closeTo(300, 9) });
    expect(await priceOf(where, parseFlex(flexContext, {}), 'production')).toBeNull();
  });
});

describe('variable quantities on the schedule', () => {
  // A four-hour schedule from midnight UTC whose longest possible end is two days later.
  const where = resolving('2026-06-01T00:00:00Z', 4);
  const ms = (iso: string) => at(iso).toMillis();

  it('keep the segments that touch the schedule, in MW, with their windows from any two of start, end and duration', async () => {
    const value = variableQuantity.parse([
      { value: '250 kW', start: '2026-06-01T01:00:00Z', end: '2026-06-01T02:00:00Z' },
      // Ends at 22:00 the evening before the schedule starts: dropped.
      { value: '1 MW', start: '2026-05-31T20:00:00Z', duration: 'PT2H' },
      // 04:00 at UTC+2 is 02:00 UTC: one hour back from there is 01:00 UTC.
      { value: '100 kW', end: '2026-06-01T04:00:00+02:00', duration: 'PT1H' },
      // Starts after the longest possible end (3 June 00:00 UTC): dropped.
      { value: '1 MW', start: '2026-06-03T01:00:00Z', duration: 'PT1H' },
    ]);
    expect(await seriesOf(where, 'site-power-capacity', value, quantityIn('MW', 'MW', 'min'))).toEqual({
      segments: [
        { startMs: ms('2026-06-01T01:00:00Z'), endMs: ms('2026-06-01T02:00:00Z'), value: expect.closeTo(0.25, 12) },
        { startMs: ms('2026-06-01T01:00:00Z'), endMs: ms('2026-06-01T02:00:00Z'), value: expect.closeTo(0.1, 12) },
      ],
      overlap: 'min',
    });
  });

  it('name the segment whose value is wrong, and give the steps no segment covers the fallback', async () => {
    const oneMw = { value: '1 MW', start: '2026-06-01T00:00:00Z', duration: 'PT1H' };
    const value = variableQuantity.parse([oneMw, { value: 5, start: '2026-06-01T01:00:00Z', duration: 'PT1H' }]);
    // A site capacity's bare number has no unit: refused rather than guessed.
    expect(await refusal(() => seriesOf(where, 'site-power-capacity', value, quantityIn('MW', 'dimensionless', 'min')))).toEqual({
      'site-power-capacity': { 1: { value: [expect.stringMatching(/^Cannot convert value `5`/)] } },
    });
    const first = variableQuantity.parse([oneMw]);
    const spec = await seriesOf(where, 'power-capacity', first, quantityIn('MW', 'MW', 'min'));
    expect(uncoveredAt(spec, 0.4)).toEqual({
      segments: [{ startMs: ms('2026-06-01T00:00:00Z'), endMs: ms('2026-06-01T01:00:00Z'), value: 1 }],
      overlap: 'min',
      default: 0.4,
    });
    expect(uncoveredAt({ fixed: 1 }, 0.4)).toEqual({ fixed: 1 });
  });

  it('resolve a fixed quantity as fixed, and an absent one as nothing', async () => {
    expect(await seriesOf(where, 'soc-gain.0', '3 kW', quantityIn('MW', 'MW', 'first'))).toEqual({ fixed: expect.closeTo(0.003, 12) });
    expect(await seriesOf(where, 'soc-gain.0', undefined, quantityIn('MW', 'MW', 'first'))).toBeUndefined();
  });
});

describe('site limits', () => {
  const where = resolving('2026-06-01T00:00:00Z', 4);

  it('take the flex-context before the asset attribute, the attribute alone, or nothing', async () => {
    const given = parseFlex(flexContext, { 'site-power-capacity': '1500 kW' });
    expect(await siteCapacity(where, given, 'site-power-capacity', 2)).toEqual({ fixed: 1.5 });
    expect(await siteCapacity(where, parseFlex(flexContext, {}), 'site-power-capacity', 2)).toEqual({ fixed: 2 });
    expect(await siteCapacity(where, parseFlex(flexContext, {}), 'site-power-capacity')).toBeUndefined();
  });

  it('bind the smaller of a directional and the overall site limit, segment by segment', () => {
    expect(tighter({ fixed: 2 }, { fixed: 1.5 })).toEqual({ fixed: 1.5 });
    expect(tighter(undefined, { fixed: 1.5 })).toEqual({ fixed: 1.5 });
    expect(tighter(undefined, undefined)).toBeNull();
    const segments = { segments: [{ startMs: 0, endMs: 1, value: 3 }], overlap: 'min' as const, default: 0.5 };
    // Under a fixed 1 MW: the 3 MW segment becomes 1 MW; the uncovered steps keep 0.5 MW.
    expect(tighter(segments, { fixed: 1 })).toEqual({ segments: [{ startMs: 0, endMs: 1, value: 1 }], overlap: 'min', default: 0.5 });
  });
});
