import { stepCost, type StorageDevice, type StorageProblem } from '../../../worker/src/tasks.ts';
import type { MoneySeries } from '../store/scheduleMoney.ts';
import type { SeriesSpec } from '../contracts/jobSpec.ts';

/** Cost figures in the price's currency; savings = baseline − cost (positive: the plan saves money). */
export interface MoneyFigures {
  plan_cost: number;
  baseline_cost: number;
  savings: number;
}

/** Figures a job stores and reports, to a millionth (of a MW, an MWh or a currency unit). */
export const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/**
 * What a device does when nobody plans it. A battery stays idle. A device with a state-of-charge
 * target above where it starts (an EV) charges at full power from the start of the schedule (its
 * plug-in) until it holds the highest target, as a charger without a plan does.
 * @returns power per step (MW, consumption positive).
 */
export function baselinePowerMw(device: StorageDevice, stepHours: number): number[] {
  const targets = (device.socTargetsMwh ?? []).filter((v): v is number => v !== null);
  let missingMwh = targets.length ? Math.max(...targets) - device.socAtStartMwh : 0;
  return device.consumptionCapacityMw.map((capacityMw, j) => {
    if (missingMwh <= 0) return 0;
    // SoC gained per MWh drawn: the charging efficiency.
    const efficiency = device.chargingEfficiency[j];
    const powerMw = Math.min(capacityMw, missingMwh / (efficiency * stepHours));
    missingMwh -= powerMw * efficiency * stepHours;
    return powerMw;
  });
}

/** @returns the series of a solved storage schedule, with each device's do-nothing power. */
export function moneySeries(problem: StorageProblem, devices: { sensorId: number; powerMw: number[] }[]): MoneySeries {
  return {
    stepHours: problem.stepHours,
    consumptionPrice: [...problem.consumptionPrice],
    productionPrice: problem.productionPrice && [...problem.productionPrice],
    inflexibleMw: [...problem.inflexiblePowerMw],
    devices: devices.map((d, i) => ({ ...d, baselineMw: baselinePowerMw(problem.devices[i], problem.stepHours) })),
  };
}

/**
 * Energy cost of one step with the given device power: the site's net flow (inflexible power
 * plus the devices) bought at the consumption price or sold at the production price.
 */
export function siteStepCost(series: MoneySeries, step: number, devicesMw: number): number {
  return stepCost(series, step, series.inflexibleMw[step] + devicesMw);
}

/** @returns the plan's cost against doing nothing over all its steps. */
export function planMoney(series: MoneySeries): MoneyFigures {
  let plan = 0;
  let baseline = 0;
  for (let j = 0; j < series.consumptionPrice.length; j++) {
    plan += siteStepCost(series, j, sumAt(series.devices, 'powerMw', j));
    baseline += siteStepCost(series, j, sumAt(series.devices, 'baselineMw', j));
  }
  return { plan_cost: round6(plan), baseline_cost: round6(baseline), savings: round6(baseline - plan) };
}

/** Sum over the devices of one of their series at a step. */
export const sumAt = (devices: MoneySeries['devices'], key: 'powerMw' | 'baselineMw', step: number) =>
  devices.reduce((sum, d) => sum + d[key][step], 0);

/** The currency of a price unit such as "EUR/MWh"; null for a fixed price given without a sensor. */
export const currencyOf = (priceUnit: string | undefined): string | null => (priceUnit ? priceUnit.split('/')[0] || null : null);

/** The consumption price's currency (`EUR/MWh` → `EUR`; null for a fixed price, which is converted before and carries none). */
export const priceCurrency = (price: SeriesSpec | null) => currencyOf(price && 'sensor' in price ? price.unit : undefined);
