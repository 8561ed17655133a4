import { describe, expect, it } from 'vitest';
import {
  FORM_CONTEXT_KEYS,
  formFromStored,
  mergeStored,
  rebaseForm,
  toFlexContext,
  toProcessFlexModel,
  toStorageFlexModel,
} from '../../renderer/src/components/schedule/flexForm.ts';
import { flexFromAttributes } from '../../renderer/src/components/schedule/legacyAttributes.ts';
import { commitmentLabel, currencyOf, moneySentence } from '../../renderer/src/lib/money.ts';

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
      // A stored ratio is shown as 90 (%) and sent back as the same quantity in %.
      'roundtrip-efficiency': '90%',
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
      'soc-min': ['Cannot convert value `lots` to an energy; write a number in kWh, or one with its unit, e.g. 10 kWh.'],
      'charging-efficiency': ['Must be greater than 0 % and at most 100 %.'],
      'storage-efficiency': ['Must be greater than 0 % and at most 100 %.'],
      'power-capacity': ['Cannot convert value `big` to a power; write it with its unit, e.g. 25 kW.'],
      'soc-targets.0.datetime': ['Missing data for required field.'],
      'soc-targets.0.value': ['Cannot convert value `x` to an energy; write a number in kWh, or one with its unit, e.g. 10 kWh.'],
    });
    expect(Object.keys(toFlexContext(form).errors)).toEqual(['site-power-capacity']);
  });

  it("takes the device set-up's quantities as they are stored, and sends them back unchanged", () => {
    const stored = { 'power-capacity': '5 kW', 'soc-max': '10 kWh', 'soc-min': '1 kWh', 'charging-efficiency': '95%' };
    const form = formFromStored(stored, {}, ZONE);
    expect([form.storage['soc-min'], form.storage['soc-max']]).toEqual(['1 kWh', '10 kWh']);
    form.storage['soc-at-start'] = '0.005 MWh';
    const model = toStorageFlexModel(form, ZONE);
    expect(model.errors).toEqual({});
    expect(model.json).toMatchObject({ ...stored, 'soc-at-start': '0.005 MWh' });
  });

  it('refuses every value the job would refuse, all at once: a negative capacity, a start or target above the maximum', () => {
    const form = formFromStored({ 'soc-max': '10 kWh' }, {}, ZONE);
    form.storage['power-capacity'] = '-5';
    form.storage['soc-at-start'] = '11';
    form.storage['soc-min'] = '0.02 MWh';
    form.targets = [{ datetime: '2026-03-02T07:00', value: '12 kWh' }];
    form.context['site-power-capacity'] = '-1 MW';
    const above = 'Must not exceed the SoC maximum (10 kWh).';
    expect(toStorageFlexModel(form, ZONE).errors).toEqual({
      'power-capacity': ['Must be greater than or equal to 0.'],
      // 11 kWh and 0.02 MWh = 20 kWh are above 10 kWh.
      'soc-at-start': [above],
      'soc-min': [above],
      'soc-targets.0.value': [above],
    });
    expect(toFlexContext(form).errors).toEqual({ 'site-power-capacity': ['Must be greater than or equal to 0.'] });
  });

  it("turns a car's SoC plugged in now, in % of soc-max, into soc-at-start in the SoC unit", () => {
    const form = formFromStored({ 'soc-max': '60 kWh' }, {}, ZONE);
    form.pluggedIn = '30';
    // 30 % of 60 kWh.
    expect(toStorageFlexModel(form, ZONE).json['soc-at-start']).toBe('18 kWh');
    form.storage['soc-at-start'] = '20';
    expect(toStorageFlexModel(form, ZONE).errors).toEqual({ 'plugged-in': ['Give either this or the SoC at start, not both.'] });
    form.storage['soc-at-start'] = '';
    form.pluggedIn = '130';
    expect(toStorageFlexModel(form, ZONE).errors).toEqual({ 'plugged-in': ['Write the SoC in %, from 0 to 100, e.g. 30.'] });
  });

  it('follows what the asset stores after another editor saved, keeping what was typed here', () => {
    const before = formFromStored({ 'soc-max': '10 kWh' }, {}, ZONE);
    const typed = { ...before, storage: { ...before.storage, 'power-capacity': '7' } };
    const after = formFromStored(
      { 'soc-max': '10 kWh', 'soc-min': '2 kWh', 'power-capacity': '5 kW' },
      { 'site-power-capacity': '20 kW' },
      ZONE,
    );
    const rebased = rebaseForm(typed, before, after);
    expect(rebased.storage['soc-min']).toBe('2 kWh');
    expect(rebased.storage['power-capacity']).toBe('7');
    expect(rebased.context['site-power-capacity']).toBe('20 kW');
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

describe('units and stored keys in the form', () => {
  it('takes a bare power in the kW the form shows, shows a stored bare number as MW, and sends references as they are', () => {
    const form = formFromStored({ 'power-capacity': 0.02, 'soc-max': 40 }, { 'site-power-capacity': { sensor: 7 } }, ZONE);
    expect(form.storage['power-capacity']).toBe('0.02 MW');
    form.storage['consumption-capacity'] = '5';
    const model = toStorageFlexModel(form, ZONE).json;
    expect(model).toMatchObject({ 'power-capacity': '0.02 MW', 'consumption-capacity': '5 kW' });
    expect(toFlexContext(form).json).toEqual({ 'site-power-capacity': { sensor: 7 } });
  });

  it('keeps the stored keys the form does not show, and drops the ones it shows but were cleared', () => {
    const stored = { 'relax-constraints': true, commitments: [{ name: 'fee' }], 'site-power-capacity': '1 MW' };
    expect(mergeStored(stored, { 'consumption-price-sensor': 3 }, FORM_CONTEXT_KEYS)).toEqual({
      commitments: [{ name: 'fee' }],
      'consumption-price-sensor': 3,
    });
    const withFlag = formFromStored({}, stored, ZONE);
    expect(withFlag.advanced['relax-constraints']).toBe('true');
    expect(mergeStored(stored, toFlexContext(withFlag).json, FORM_CONTEXT_KEYS)).toEqual(stored);
  });

  it('takes a bare breach price in the currency and unit shown, and refuses one in neither', () => {
    const form = formFromStored({}, {}, ZONE);
    form.advanced['soc-minima-breach-price'] = '1000';
    form.advanced['consumption-breach-price'] = '100';
    expect(toFlexContext(form, 'NOK')).toEqual({
      json: { 'soc-minima-breach-price': '1000 NOK/MWh', 'consumption-breach-price': '100 NOK/MW' },
      errors: {},
    });
    form.advanced['soc-maxima-breach-price'] = 'a lot';
    expect(toFlexContext(form, 'EUR').errors).toEqual({ 'soc-maxima-breach-price': ['Write a price in EUR/MWh, e.g. 1000.'] });
  });

  it('shows efficiencies in % and takes a bare number in %: 95 is 95 %, never 95 times', () => {
    const form = formFromStored({ 'charging-efficiency': 0.95, 'discharging-efficiency': '90%', 'storage-efficiency': 0.9999 }, {}, ZONE);
    expect([form.storage['charging-efficiency'], form.storage['discharging-efficiency'], form.storage['storage-efficiency']]).toEqual([
      '95',
      '90',
      '99.99',
    ]);
    form.storage['roundtrip-efficiency'] = '';
    form.storage['charging-efficiency'] = '97';
    expect(toStorageFlexModel(form, ZONE).json).toMatchObject({
      'charging-efficiency': '97%',
      'discharging-efficiency': '90%',
      'storage-efficiency': '99.99%',
    });
    // A ratio typed by habit is refused, not read as 0.95 %.
    form.storage['charging-efficiency'] = '0.95';
    expect(toStorageFlexModel(form, ZONE).errors).toEqual({ 'charging-efficiency': ['Efficiencies are in %: write 95 for 95 %.'] });
  });
});

describe("a FlexMeasures 0.18 asset's attributes in the form", () => {
  it('fill the keys nothing stored gives, in kW, kWh and %, the sensor before the asset', () => {
    const from = flexFromAttributes(
      { capacity_in_mw: 0.5, market_id: 9 },
      { capacity_in_mw: 2, min_soc_in_mwh: 0.05, max_soc_in_mwh: 0.45, roundtrip_efficiency: 0.9, storage_efficiency: 0.9999 },
      'kWh',
    );
    expect(from.model).toEqual({
      'power-capacity': '500 kW',
      'soc-min': 50,
      'soc-max': 450,
      'soc-unit': 'kWh',
      'roundtrip-efficiency': '90%',
      'storage-efficiency': '99.99%',
    });
    expect(from.context).toEqual({ 'site-power-capacity': '2000 kW', 'consumption-price-sensor': 9 });
    expect(from.used).toEqual([
      'capacity_in_mw',
      'min_soc_in_mwh',
      'max_soc_in_mwh',
      'roundtrip_efficiency',
      'storage_efficiency',
      'market_id',
    ]);
    const form = formFromStored(from.model, from.context, ZONE);
    expect([form.storage['power-capacity'], form.storage['soc-max'], form.storage['roundtrip-efficiency']]).toEqual([
      '500 kW',
      '450',
      '90',
    ]);
    expect(flexFromAttributes({}, { max_soc_in_mwh: 0.45 }, 'MWh').model).toEqual({ 'soc-max': 0.45, 'soc-unit': 'MWh' });
  });
});

describe('money', () => {
  it('is a sentence in the currency, penalties named in words', () => {
    expect(moneySentence(1.734, 'EUR')).toBe('costs € 1.73');
    expect(moneySentence(-0.74, 'EUR')).toBe('earns € 0.74');
    expect(moneySentence(0.001, 'EUR')).toBe('costs nothing');
    expect(moneySentence(4142.68, undefined)).toBe('costs 4,142.68');
    expect(commitmentLabel('soc minima breach battery')).toBe('Penalty: SoC below a minimum or target (battery)');
    expect(commitmentLabel('grid fee')).toBe('grid fee');
    expect([currencyOf('EUR/MWh'), currencyOf('KRW/kWh'), currencyOf('kW'), currencyOf(undefined)]).toEqual([
      'EUR',
      'KRW',
      undefined,
      undefined,
    ]);
  });
});
