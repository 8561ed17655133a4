import { describe, expect, it } from 'vitest';
import { formFromStored, toFlexContext, toProcessFlexModel, toStorageFlexModel } from '../../renderer/src/components/schedule/flexForm.ts';

const ZONE = 'Europe/Amsterdam';

describe('the flex-model and flex-context form', () => {
  it('starts from the stored config and gives back the JSON the trigger takes', () => {
    const form = formFromStored(
      {
        'soc-at-start': 10,
        'soc-max': 40,
        'power-capacity': '10 kW',
        'roundtrip-efficiency': 0.9,
        'soc-targets': [{ value: 30, datetime: '2025-03-01T18:00:00+01:00' }],
      },
      { 'consumption-price-sensor': 3, 'site-power-capacity': '100 kW', 'inflexible-device-sensors': [5] },
      ZONE,
    );
    expect(form.targets).toEqual([{ datetime: '2025-03-01T18:00', value: '30' }]);
    const model = toStorageFlexModel(form, ZONE);
    expect(model.errors).toEqual({});
    expect(model.json).toEqual({
      'soc-at-start': 10,
      'soc-max': 40,
      'soc-unit': 'kWh',
      'power-capacity': '10 kW',
      'roundtrip-efficiency': 0.9,
      'prefer-charging-sooner': true,
      'soc-targets': [{ value: 30, datetime: '2025-03-01T18:00:00+01:00' }],
    });
    expect(toFlexContext(form)).toEqual({
      json: { 'consumption-price-sensor': 3, 'site-power-capacity': '100 kW', 'inflexible-device-sensors': [5] },
      errors: {},
    });
  });

  it('reports problems under the field names the API uses', () => {
    const form = formFromStored({}, {}, ZONE);
    form.storage['soc-min'] = 'lots';
    form.storage['charging-efficiency'] = '150%';
    form.storage['storage-efficiency'] = '0';
    form.storage['power-capacity'] = 'big';
    form.targets = [{ datetime: '', value: 'x' }];
    form.context['site-power-capacity'] = 'kW';
    expect(toStorageFlexModel(form, ZONE).errors).toEqual({
      'soc-min': ['Not a valid number.'],
      'charging-efficiency': ['Must be greater than 0 and less than or equal to 1.'],
      'storage-efficiency': ['Must be greater than 0 and less than or equal to 1.'],
      'power-capacity': ['Cannot convert value `big` to a power; write it with its unit, e.g. 25 kW.'],
      'soc-targets.0.datetime': ['Missing data for required field.'],
      'soc-targets.0.value': ['Not a valid number.'],
    });
    expect(Object.keys(toFlexContext(form).errors)).toEqual(['site-power-capacity']);
  });

  it('checks the process flex-model', () => {
    const form = formFromStored({}, {}, ZONE);
    expect(toProcessFlexModel(form).errors).toEqual({
      duration: ['Missing data for required field.'],
      power: ['Missing data for required field.'],
    });
    form.process.duration = 'PT4H';
    form.process.power = '0.2';
    expect(toProcessFlexModel(form)).toEqual({
      json: { duration: 'PT4H', power: 0.2, 'process-type': 'INFLEXIBLE', 'optimization-sense': 'MIN' },
      errors: {},
    });
  });
});
