import { describe, expect, it } from 'vitest';
import { storageFlexModel } from '../../server/src/contracts/flexModel.ts';
import type { SeriesSpec } from '../../server/src/contracts/jobSpec.ts';
import { deviceSpec } from '../../server/src/scheduling/flexConfig/device.ts';
import { parseFlex } from '../../server/src/scheduling/flexConfig/fields.ts';
import { checkTriggerValues } from '../../server/src/scheduling/storedValues.ts';
import { asset, refusal, resolving, sensor } from '../helpers/flexConfig.ts';

// A device's capacities and efficiencies as FlexMeasures documents them: a roundtrip efficiency r
// splits into √r each way; storage efficiency is clipped to [0, 1] in 1.0 and refused above 1 in
// 0.18; without a power capacity 1.0 takes the larger directional one, else the site's; one
// non-zero directional capacity alone makes the other 0 (1.0). Values by hand: 1 MW = 1000 kW.

/** A device spec for this flex-model on a four-hour schedule (soc-max given, as every device needs one). */
function deviceOf(
  model: Record<string, unknown>,
  options: { sensor?: Parameters<typeof sensor>[0]; sitePower?: SeriesSpec; dialect10?: boolean } = {},
) {
  const where = { ...resolving('2026-06-01T00:00:00Z', 4), sitePower: options.sitePower, oppositeCapacityZero: options.dialect10 ?? false };
  return deviceSpec(where, {
    sensor: sensor(options.sensor),
    asset: asset(),
    model: parseFlex(storageFlexModel, { 'soc-max': 1, ...model }),
  });
}

describe('efficiencies', () => {
  it('split a roundtrip efficiency into its square root each way: √81% = 90%', async () => {
    const device = await deviceOf({ 'roundtrip-efficiency': '81%' });
    expect(device.chargingEfficiency).toEqual({ fixed: expect.closeTo(0.9, 12) });
    expect(device.dischargingEfficiency).toEqual({ fixed: expect.closeTo(0.9, 12) });
  });

  it('take one-way efficiencies as given, 100% when absent, and never beside a roundtrip efficiency', async () => {
    const device = await deviceOf({ 'charging-efficiency': '95%' });
    expect(device.chargingEfficiency).toEqual({ fixed: expect.closeTo(0.95, 12) });
    expect(device.dischargingEfficiency).toEqual({ fixed: 1 });
    // FlexMeasures 0.18's message, under `_schema`, in its internal field names.
    expect(await refusal(() => deviceOf({ 'roundtrip-efficiency': 0.9, 'charging-efficiency': '95%' }))).toEqual({
      _schema: ['Fields `charging_efficiency` and `roundtrip_efficiency` are mutually exclusive.'],
    });
  });

  it('keep a storage efficiency per sensor step: 99.9% = 0.999, absent = 1, above 100% clipped to 1', async () => {
    expect((await deviceOf({ 'storage-efficiency': '99.9%' })).storageEfficiencyPerSensorStep).toBeCloseTo(0.999, 12);
    expect((await deviceOf({})).storageEfficiencyPerSensorStep).toBe(1);
    expect((await deviceOf({ 'storage-efficiency': 1.5 })).storageEfficiencyPerSensorStep).toBe(1);
    expect((await deviceOf({}, { sensor: { attributes: { storage_efficiency: 0.98 } } })).storageEfficiencyPerSensorStep).toBe(0.98);
  });

  it('refuse a storage efficiency of 1.5 in the 0.18 dialect and let the 1.0 dialect clip it', async () => {
    const trigger = { models: [{ 'storage-efficiency': 1.5 }], context: {} };
    const { rows } = resolving('2026-06-01T00:00:00Z', 4);
    // 0.18's storage-efficiency is a fraction in (0, 1].
    expect(await refusal(() => checkTriggerValues(rows, { ...trigger, clipStorageEfficiency: false }))).toEqual({
      'storage-efficiency': ['Must be greater than 0 and less than or equal to 1.'],
    });
    await expect(checkTriggerValues(rows, { ...trigger, clipStorageEfficiency: true })).resolves.toBeUndefined();
  });
});

describe('power capacities in MW', () => {
  it('read a power capacity with its unit (500 kW = 0.5 MW), leaving the directions open in 0.18', async () => {
    const device = await deviceOf({ 'power-capacity': '500 kW' });
    expect(device.powerCapacityMw).toEqual({ fixed: expect.closeTo(0.5, 12) });
    expect(device.consumptionCapacityMw).toBeNull();
    expect(device.productionCapacityMw).toBeNull();
  });

  it('in 1.0, close the other direction when one non-zero direction is given, and take the larger as power capacity', async () => {
    const device = await deviceOf({ 'consumption-capacity': '200 kW' }, { dialect10: true });
    expect(device.consumptionCapacityMw).toEqual({ fixed: expect.closeTo(0.2, 12) });
    expect(device.productionCapacityMw).toEqual({ fixed: 0 });
    // max(0.2 MW, 0 MW) = 0.2 MW.
    expect(device.powerCapacityMw).toEqual({ fixed: expect.closeTo(0.2, 12) });
    const both = await deviceOf({ 'consumption-capacity': '200 kW', 'production-capacity': '0.3 MW' }, { dialect10: true });
    expect(both.powerCapacityMw).toEqual({ fixed: 0.3 });
  });

  it("in 0.18, keep the other direction open; without any capacity, take the site's, else none", async () => {
    const device = await deviceOf({ 'consumption-capacity': '200 kW' });
    expect(device.productionCapacityMw).toBeNull();
    expect(device.powerCapacityMw).toEqual({ fixed: expect.closeTo(0.2, 12) });
    expect((await deviceOf({}, { sitePower: { fixed: 2 } })).powerCapacityMw).toEqual({ fixed: 2 });
    expect((await deviceOf({})).powerCapacityMw).toBeNull();
  });

  it('fall back to the sensor attributes, also written as quantities (8 kW = 0.008 MW)', async () => {
    const attributes = { capacity_in_mw: 0.3, consumption_capacity: '8 kW' };
    const device = await deviceOf({}, { sensor: { attributes } });
    expect(device.powerCapacityMw).toEqual({ fixed: 0.3 });
    expect(device.consumptionCapacityMw).toEqual({ fixed: expect.closeTo(0.008, 12) });
  });

  it('keep the attribute for the steps capacity segments leave uncovered', async () => {
    const segments = [{ value: '100 kW', start: '2026-06-01T01:00:00Z', end: '2026-06-01T02:00:00Z' }];
    const device = await deviceOf({ 'power-capacity': segments }, { sensor: { attributes: { capacity_in_mw: 0.3 } } });
    expect(device.powerCapacityMw).toMatchObject({ segments: [{ value: expect.closeTo(0.1, 12) }], overlap: 'min', default: 0.3 });
  });
});

describe('flows and directions', () => {
  it('read soc-gain and soc-usage as powers in MW: 1 kW = 0.001 MW', async () => {
    const device = await deviceOf({ 'soc-gain': ['1 kW'], 'soc-usage': ['0.5 MW', '250 kW'] });
    expect(device.socGainMw).toEqual([{ fixed: expect.closeTo(0.001, 12) }]);
    expect(device.socUsageMw).toEqual([{ fixed: 0.5 }, { fixed: expect.closeTo(0.25, 12) }]);
  });

  it('let a one-way charger and a strict consumer only consume, a strict producer only produce', async () => {
    expect(await deviceOf({}, { sensor: { asset_type: 'one-way_evse' } })).toMatchObject({ canConsume: true, canProduce: false });
    const consumer = { attributes: { is_consumer: true, is_producer: false } };
    expect(await deviceOf({}, { sensor: consumer })).toMatchObject({ canConsume: true, canProduce: false });
    const producer = { attributes: { is_consumer: false, is_producer: true } };
    expect(await deviceOf({}, { sensor: producer })).toMatchObject({ canConsume: false, canProduce: true });
  });
});
