import type { Knex } from 'knex';
import { figures } from './moneyFigures.ts';
import { currencyInForce, plansInForce } from './planInForce.ts';
import { stepMoney } from './stepMoney.ts';

/**
 * A period's money as the cockpit counts it (each step by the plan in force at it, see
 * `planInForce.ts`), over the steps whose devices were all measured: the cost with the devices'
 * measured power, and the cost of the same steps doing nothing (batteries idle, EVs charging at once).
 */
export interface PeriodMoney {
  cost: number | null;
  cost_without_flex: number | null;
  /** Cost without flex − cost: what the flexible devices saved (negative: cost). */
  savings: number | null;
  /** Steps with a plan in force, those of them measured, and those planned by the fallback scheduler. */
  steps: number;
  measured_steps: number;
  fallback_steps: number;
}

/** @returns the money of the site's sensors over [startMs, endMs) and the currency its plans price in. */
export async function periodMoney(
  db: Knex,
  sensorIds: number[],
  window: { startMs: number; endMs: number; nowMs: number; zone: string },
): Promise<{ currency: string | null; money: PeriodMoney }> {
  const inForce = await plansInForce(db, sensorIds, window.startMs, window.endMs);
  const f = figures(await stepMoney(db, inForce, window.endMs), window.nowMs, window.zone);
  // The realised savings are the baseline of the measured steps less their realised cost.
  const withoutFlex = f.realised_cost === null ? null : Math.round((f.realised_cost + f.realised_savings!) * 1e6) / 1e6;
  return {
    currency: currencyInForce(inForce),
    money: {
      cost: f.realised_cost,
      cost_without_flex: withoutFlex,
      savings: f.realised_savings,
      steps: f.steps,
      measured_steps: f.measured_steps,
      fallback_steps: f.fallback_steps,
    },
  };
}
