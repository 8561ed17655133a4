import { describe, expect, it } from 'vitest';
import type { JobResult } from '../../renderer/src/api/types.ts';
import { deviations, overlaySpec, type OverlayInput } from '../../renderer/src/components/charts/overlaySpec.ts';
import { scheduleCsvRows, totalCost } from '../../renderer/src/components/schedule/scheduleTable.ts';
import { toCsv } from '../../renderer/src/lib/csv.ts';

const H = 3_600_000;
/** 2026-01-05 00:00 in Amsterdam (UTC+1). */
const START = Date.parse('2026-01-04T23:00:00Z');

/**
 * A 10 kW battery with a 5 kW household load over three hours: charge, discharge, idle.
 * Site power 15, −5, 5 kW at 40, 100, 60 EUR/MWh: 0.6, −0.5, 0.3 EUR, together 0.4 EUR.
 */
const result: JobResult = {
  data_source_id: 1,
  belief_time_ms: START,
  start_ms: START,
  end_ms: START + 3 * H,
  step_ms: H,
  soc_unit: 'kWh',
  devices: [{ sensor_id: 7, power_mw: [0.01, -0.01, 0], soc_mwh: [0.002, 0.012, 0.002, 0.002] }],
  site_power_mw: [0.015, -0.005, 0.005],
  cost_per_step: [0.6, -0.5, 0.3],
  consumption_price: [40, 100, 60],
  production_price: null,
  money: { currency: 'EUR', plan_cost: 0.4, baseline_cost: 1, savings: 0.6 },
  currency: 'EUR',
};

describe('the schedule table', () => {
  it('lists each step with units and the sign convention named, and costs that add up to the plan cost', () => {
    const csv = toCsv(scheduleCsvRows(result, 'Europe/Amsterdam', { 7: '=HYPERLINK("x")' }));
    expect(csv.split('\r\n')).toEqual([
      // A sensor name that a spreadsheet would run as a formula is made inert.
      `Start (Europe/Amsterdam),"'=HYPERLINK(""x"") (kW, consumption positive)","'=HYPERLINK(""x""): SoC at step end (kWh)",` +
        '"Site power (kW, consumption positive)",Price (EUR/MWh),Cost (EUR)',
      '2026-01-05T00:00:00+01:00,10,12,15,40,0.6',
      '2026-01-05T01:00:00+01:00,-10,2,-5,100,-0.5',
      '2026-01-05T02:00:00+01:00,0,2,5,60,0.3',
      '',
    ]);
    expect(totalCost(result)).toBe(result.money!.plan_cost);
  });
});

describe('the overlay chart', () => {
  const input: OverlayInput = {
    startMs: START,
    stepMs: H,
    steps: 4,
    zone: 'Europe/Amsterdam',
    power: {
      unit: 'kW',
      scheduled: [{ name: 'plan', values: [10, -10, 10, null] }],
      measured: [{ name: 'meter', values: [10, -9.5, 4, 3] }],
    },
    tolerance: 1,
  };

  it('marks the steps where measured power leaves the plan by more than the tolerance, and no others', () => {
    // Step 1 is 0.5 kW off (within), step 2 is 6 kW off, step 3 has no plan.
    expect(deviations(input)).toEqual([{ from: START + 2 * H, to: START + 3 * H }]);
  });

  it('draws a step line that holds each value for its step and breaks at a gap', () => {
    const spec = overlaySpec({ ...input, power: { ...input.power, measured: [{ name: 'meter', values: [10, null, 4, 3] }] } })!;
    const lines = (
      spec.layer as { layer?: { mark: { type: string }; data: { values: { series: string; value: number; segment: number }[] } }[] }[]
    )
      .flatMap((l) => l.layer ?? [])
      .filter((l) => l.mark.type === 'line');
    const meter = lines.flatMap((l) => l.data.values).filter((r) => r.series === 'meter');
    // 10 held to the end of its step; after the gap, 4 and 3, the last held to the window's end.
    expect(meter.map((r) => [r.value, r.segment])).toEqual([
      [10, 0],
      [10, 0],
      [4, 1],
      [3, 1],
      [3, 1],
    ]);
  });

  it('draws nothing without data', () => {
    expect(overlaySpec({ ...input, power: { unit: 'kW', scheduled: [], measured: [] } })).toBeUndefined();
  });
});
