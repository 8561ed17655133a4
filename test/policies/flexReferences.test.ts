import { describe, expect, it } from 'vitest';
import { flexReferences } from '../../server/src/policies/references.ts';
import type { StorageJobSpec } from '../../server/src/contracts/jobSpec.ts';
import { jobReferences } from '../../server/src/scheduling/jobReferences.ts';

const brief = (refs: ReturnType<typeof flexReferences>) => refs.map((r) => `${r.kind} ${r.id} ${r.use} ${r.field}`);

describe('flexReferences finds every sensor a flex-config names', () => {
  it('classifies outputs as writes and everything else as reads, at any depth, for fields it has never heard of', () => {
    const model = {
      'state-of-charge': { sensor: 1 },
      consumption: { sensor: 2 },
      production: { sensor: 3 },
      'soc-minima': { sensor: 4 },
      'soc-gain': ['1 kW', { sensor: 5 }],
      'some-future-field': { nested: [{ sensor: 6 }] },
      'soc-max': '1 MWh',
    };
    expect(brief(flexReferences(model))).toEqual([
      'sensor 1 write state-of-charge',
      'sensor 2 write consumption',
      'sensor 3 write production',
      'sensor 4 read soc-minima',
      'sensor 5 read soc-gain.1',
      'sensor 6 read some-future-field.nested.0',
    ]);
    const context = {
      'consumption-price-sensor': 7,
      'inflexible-device-sensors': [8, 9],
      'aggregate-power': { sensor: 10 },
      'site-power-capacity': { sensor: 11 },
    };
    expect(brief(flexReferences(context))).toEqual([
      'sensor 7 read consumption-price-sensor',
      'sensor 8 read inflexible-device-sensors.0',
      'sensor 9 read inflexible-device-sensors.1',
      'sensor 10 write aggregate-power',
      'sensor 11 read site-power-capacity',
    ]);
  });

  it("reads a commitment's baseline, prices and scope", () => {
    const context = { commitments: [{ name: 'c', baseline: { sensor: 1 }, 'up-price': { sensor: 2 }, sensors: [3, 4] }] };
    expect(brief(flexReferences(context))).toEqual([
      'sensor 1 read commitments.0.baseline',
      'sensor 2 read commitments.0.up-price',
      'sensor 3 read commitments.0.sensors.0',
      'sensor 4 read commitments.0.sensors.1',
    ]);
  });

  it('takes the devices of an asset trigger’s list as writes', () => {
    const list = [{ sensor: 1, asset: 2, 'state-of-charge': { sensor: 3 }, 'power-capacity': { sensor: 4 } }];
    expect(brief(flexReferences(list, 'flex-model'))).toEqual([
      'sensor 1 write flex-model.0.sensor',
      'asset 2 write flex-model.0.asset',
      'sensor 3 write flex-model.0.state-of-charge',
      'sensor 4 read flex-model.0.power-capacity',
    ]);
  });

  it('ignores what is not an id (the schema answers those)', () => {
    expect(flexReferences({ 'state-of-charge': { sensor: '1' }, 'consumption-price-sensor': 1.5 })).toEqual([]);
    expect(flexReferences(null)).toEqual([]);
  });
});

describe('jobReferences', () => {
  it('names what a job writes (…SensorId) and reads (series, …SensorIds)', () => {
    const spec = {
      scheduler: 'StorageScheduler',
      devices: [{ sensorId: 1, socSensorId: 2, powerCapacityMw: { sensor: 3, unit: 'MW' }, socGainMw: [{ fixed: 1 }] }],
      consumptionPrice: { sensor: 4, unit: 'EUR/MWh' },
      inflexibleSensorIds: [5],
    } as unknown as StorageJobSpec;
    expect(brief(jobReferences(spec))).toEqual([
      'sensor 1 write devices.0.sensorId',
      'sensor 2 write devices.0.socSensorId',
      'sensor 3 read devices.0.powerCapacityMw',
      'sensor 4 read consumptionPrice',
      'sensor 5 read inflexibleSensorIds.0',
    ]);
  });
});
