import type { Knex } from 'knex';
import { currencyInForce, plansInForce, type StepInForce } from './planInForce.ts';
import { costPerMw, measuredFlows, measurements, type Measured } from './stepMoney.ts';

/**
 * A period's money, each step with a plan in force at that plan's prices (see `planInForce.ts`):
 * the cost of the site's measured net grid flow (cost as it was), and the cost of the same steps
 * with the flexible devices doing nothing (batteries idle, EVs charging at once) and the rest of
 * the site as it was measured. The rest of the site is the grid meter less the devices where the
 * site has a grid meter; without one it is the plan's forecast (`rest_of_site` says which).
 */
export interface PeriodMoney {
  cost: number | null;
  cost_without_flex: number | null;
  /** Cost without flex − cost: what the flexible devices saved (negative: cost). */
  savings: number | null;
  /** Where the rest of the site (the load without the flexible devices) comes from. */
  rest_of_site: 'measured' | 'forecast';
  /** Steps with a plan in force, those of them measured, and those planned by the fallback scheduler. */
  steps: number;
  measured_steps: number;
  fallback_steps: number;
}

/** One step's cost as it was and without flex (see `measuredFlows`); null when not all of it was measured. */
function stepCosts(step: StepInForce, measured: Measured, gridSensorIds: number[]): { cost: number; withoutFlex: number } | null {
  const flows = measuredFlows(step, measured, gridSensorIds);
  if (!flows) return null;
  const { series } = step.plan;
  return {
    cost: flows.gridMw * costPerMw(series, step.index, flows.gridMw),
    withoutFlex: flows.withoutMw * costPerMw(series, step.index, flows.withoutMw),
  };
}

const round6 = (v: number) => Math.round(v * 1e6) / 1e6;

/**
 * @param gridSensorIds the site's grid meters' power sensors (its net flow, as the imported and
 *   exported energy counts it); none: the rest of the site is the plans' forecast.
 * @returns the money of the site's sensors over [startMs, endMs) and the currency its plans price in.
 */
export async function periodMoney(
  db: Knex,
  site: { sensorIds: number[]; gridSensorIds: number[] },
  window: { startMs: number; endMs: number },
): Promise<{ currency: string | null; money: PeriodMoney }> {
  const inForce = await plansInForce(db, site.sensorIds, window.startMs, window.endMs);
  const measured = await measurements(db, inForce, window.endMs, site.gridSensorIds);
  const counted = inForce.map((step) => stepCosts(step, measured, site.gridSensorIds)).filter((c) => c !== null);
  const cost = counted.length ? round6(counted.reduce((sum, c) => sum + c.cost, 0)) : null;
  const withoutFlex = counted.length ? round6(counted.reduce((sum, c) => sum + c.withoutFlex, 0)) : null;
  return {
    currency: currencyInForce(inForce),
    money: {
      cost,
      cost_without_flex: withoutFlex,
      savings: cost === null ? null : round6(withoutFlex! - cost),
      rest_of_site: site.gridSensorIds.length ? 'measured' : 'forecast',
      steps: inForce.length,
      measured_steps: counted.length,
      fallback_steps: inForce.filter((s) => s.devices.some((d) => d.plan.fallback)).length,
    },
  };
}
