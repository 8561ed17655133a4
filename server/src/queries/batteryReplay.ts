import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import type { StorageProblem } from '../../../worker/src/tasks.ts';
import { tariffPriceAt, type TimeOfUseTariff } from '../domain/tariffPrice.ts';
import type { Sensor } from '../store/sensors.ts';
import type { WorkerPool } from '../workers/workerPool.ts';
import { signConvention } from './loadSign.ts';
import { readSensorData } from './readSensorData.ts';

/**
 * "Would a battery have paid?": a replay over a site's measured history on a simulated clock.
 *
 * Once a day, at local midnight, the clock stands at `now`: load and PV are forecast from what was
 * measured before `now` only (read through `measuredBefore`, the replay's one read of measurements),
 * the real storage scheduler plans the battery over the next 48 hours against those forecasts and
 * the tariff, and the battery then follows the first day of that plan against what was *measured*
 * that day (read once the clock has passed it), kept within its power and state-of-charge limits.
 * Every hour's grid flow is priced with and without the battery.
 */

const HOUR = 3600_000;
/** History each day's forecast is made from (as the server's forecasts read it). */
const HISTORY_DAYS = 28;
/** A plan looks two days ahead, so the first day's end is not planned as if the world ended there. */
const PLAN_HOURS = 48;

export interface ReplayBattery {
  capacityKwh: number;
  powerKw: number;
  /** Round trip, 0–1: split evenly between charging and discharging. */
  roundTripEfficiency: number;
}

/** A tariff in EUR/MWh: buying by time of use, selling at one feed-in price. */
export interface ReplayTariff {
  buying: TimeOfUseTariff;
  feedInPrice: number;
}

export interface ReplayInput {
  load: Sensor;
  /** The site's PV, consumption or production signed as its sensor says; null: none. */
  pv: Sensor | null;
  battery: ReplayBattery;
  tariff: ReplayTariff;
  /** Replayed from the local midnight at or before `fromMs` to the one at or after `toMs`. */
  fromMs: number;
  toMs: number;
  location: { latitude: number; longitude: number } | null;
  country: string | null;
  /** Called after each replayed day. */
  onDay?: (done: number, total: number) => void;
}

export interface ReplayMonth {
  /** YYYY-MM in the site's time zone. */
  month: string;
  hours: number;
  costWithout: number;
  costWith: number;
  savings: number;
  cycles: number;
}

export interface ReplayDay {
  startMs: number;
  /** The battery power planned at the day's start, kW per hour (charging positive), first 24 h kept. */
  plannedKw: number[];
}

export interface ReplayResult {
  months: ReplayMonth[];
  days: ReplayDay[];
  costWithout: number;
  costWith: number;
  savings: number;
  /** Savings scaled to 365 days. */
  savingsPerYear: number;
  cycles: number;
  /** Hours without a measured load (or PV) value, left out of both costs. */
  missingHours: number;
  /** Hours a forecast had nothing to go on (planned as 0 kW). */
  unforecastHours: number;
}

/**
 * The replay's only read of measurements: a sensor's hourly kW, consumption positive, over
 * [fromMs, nowMs), as known at `nowMs` (events starting before it, beliefs formed by then).
 */
export async function measuredBefore(db: Knex, sensor: Sensor, fromMs: number, nowMs: number): Promise<(number | null)[]> {
  const read = await readSensorData(db, sensor, {
    startMs: fromMs,
    durationMs: nowMs - fromMs,
    unit: 'kW',
    stepMs: HOUR,
    beliefsBeforeMs: nowMs,
  });
  if ('problems' in read) throw new Error(`Cannot read sensor ${sensor.id}: ${JSON.stringify(read.problems)}`);
  const sign = signConvention(sensor) === 'production positive' ? -1 : 1;
  return read.values.map((v) => (v === null ? null : sign * v));
}

/** Net load (load − PV) per hour, consumption positive, as known at `nowMs`. */
async function netLoadBefore(db: Knex, input: ReplayInput, fromMs: number, nowMs: number): Promise<(number | null)[]> {
  const load = await measuredBefore(db, input.load, fromMs, nowMs);
  if (!input.pv) return load;
  const pv = await measuredBefore(db, input.pv, fromMs, nowMs);
  return load.map((l, i) => (l === null || pv[i] === null ? null : l + pv[i]!));
}

/** A sensor's forecast of the next `steps` hours from what was measured before `nowMs`. */
async function forecastFrom(db: Knex, pool: WorkerPool, input: ReplayInput, sensor: Sensor, nowMs: number, steps: number) {
  const historyStartMs = nowMs - HISTORY_DAYS * 24 * HOUR;
  const history = await measuredBefore(db, sensor, historyStartMs, nowMs);
  const sign = signConvention(sensor) === 'production positive' ? -1 : 1;
  // The forecaster sees the series as stored (a PV's shape is found on its own sign).
  const outcome = await pool.run('forecast', {
    stepMs: HOUR,
    historyStartMs,
    history: history.map((v) => (v === null ? null : sign * v)),
    steps,
    timezone: sensor.timezone,
    country: input.country,
    location: input.location,
    regressors: [],
  });
  return outcome.values.map((v) => (v === null ? null : sign * v));
}

/** The plan of the battery (kW per hour, charging positive) made at `nowMs` for PLAN_HOURS. */
async function planAt(db: Knex, pool: WorkerPool, input: ReplayInput, nowMs: number, socKwh: number) {
  const load = await forecastFrom(db, pool, input, input.load, nowMs, PLAN_HOURS);
  const pv = input.pv ? await forecastFrom(db, pool, input, input.pv, nowMs, PLAN_HOURS) : null;
  let unforecast = 0;
  const netKw = load.map((l, i) => {
    if (l === null || (pv && pv[i] === null)) unforecast++;
    return (l ?? 0) + (pv?.[i] ?? 0);
  });
  const { capacityKwh, powerKw } = input.battery;
  const oneWay = Math.sqrt(input.battery.roundTripEfficiency);
  const each = (v: number) => new Array<number>(PLAN_HOURS).fill(v);
  const problem: StorageProblem = {
    stepCount: PLAN_HOURS,
    stepHours: 1,
    devices: [
      {
        name: 'battery',
        socAtStartMwh: socKwh / 1000,
        socMinMwh: 0,
        socMaxMwh: capacityKwh / 1000,
        socMinimaMwh: null,
        socMaximaMwh: null,
        socTargetsMwh: null,
        consumptionCapacityMw: each(powerKw / 1000),
        productionCapacityMw: each(powerKw / 1000),
        chargingEfficiency: each(oneWay),
        dischargingEfficiency: each(oneWay),
        storageEfficiency: each(1),
        stockDeltaMw: null,
      },
    ],
    inflexiblePowerMw: netKw.map((v) => v / 1000),
    siteConsumptionCapacityMw: null,
    siteProductionCapacityMw: null,
    consumptionPrice: Array.from({ length: PLAN_HOURS }, (_, i) => tariffPriceAt(input.tariff.buying, nowMs + i * HOUR)),
    productionPrice: each(input.tariff.feedInPrice),
    preferChargingSooner: true,
  };
  const outcome = await pool.run('storageSchedule', problem);
  if (!outcome.ok) throw new Error(`The scheduler could not plan ${new Date(nowMs).toISOString()}: ${outcome.message}`);
  return { plannedKw: outcome.schedule.devices[0].powerMw.map((p) => p * 1000), unforecast: Math.min(unforecast, 24) };
}

/** What one hour of following the plan did to the battery: its power kept within the limits. */
function followHour(battery: ReplayBattery, plannedKw: number, socKwh: number): { powerKw: number; socKwh: number; stockKwh: number } {
  const oneWay = Math.sqrt(battery.roundTripEfficiency);
  const limited = Math.max(-battery.powerKw, Math.min(battery.powerKw, plannedKw));
  if (limited >= 0) {
    const powerKw = Math.min(limited, (battery.capacityKwh - socKwh) / oneWay);
    return { powerKw, socKwh: socKwh + powerKw * oneWay, stockKwh: powerKw * oneWay };
  }
  const powerKw = Math.max(limited, -socKwh * oneWay);
  return { powerKw, socKwh: socKwh + powerKw / oneWay, stockKwh: -powerKw / oneWay };
}

/** The EUR of an hour's grid flow (kW over one hour, consumption positive). */
const priceFlow = (tariff: ReplayTariff, startMs: number, kw: number) =>
  (kw > 0 ? kw * tariffPriceAt(tariff.buying, startMs) : kw * tariff.feedInPrice) / 1000;

function emptyMonth(month: string): ReplayMonth {
  return { month, hours: 0, costWithout: 0, costWith: 0, savings: 0, cycles: 0 };
}

/** Replays the battery over the period (see the module's comment). */
export async function replayBattery(db: Knex, pool: WorkerPool, input: ReplayInput): Promise<ReplayResult> {
  const zone = input.load.timezone;
  const first = DateTime.fromMillis(input.fromMs, { zone }).startOf('day');
  const dayStarts: number[] = [];
  for (let d = first; d.toMillis() < input.toMs; d = d.plus({ days: 1 })) dayStarts.push(d.toMillis());
  const months = new Map<string, ReplayMonth>();
  const result: ReplayResult = {
    months: [],
    days: [],
    costWithout: 0,
    costWith: 0,
    savings: 0,
    savingsPerYear: 0,
    cycles: 0,
    missingHours: 0,
    unforecastHours: 0,
  };
  let socKwh = 0;
  for (const [i, nowMs] of dayStarts.entries()) {
    const dayEndMs = DateTime.fromMillis(nowMs, { zone }).plus({ days: 1 }).toMillis();
    const plan = await planAt(db, pool, input, nowMs, socKwh);
    const hours = Math.round((dayEndMs - nowMs) / HOUR);
    result.days.push({ startMs: nowMs, plannedKw: plan.plannedKw.slice(0, hours) });
    result.unforecastHours += plan.unforecast;
    // The clock has passed the day: what was measured in it is known now.
    const measured = await netLoadBefore(db, input, nowMs, dayEndMs);
    for (let h = 0; h < hours; h++) {
      const startMs = nowMs + h * HOUR;
      const key = DateTime.fromMillis(startMs, { zone }).toFormat('yyyy-MM');
      const month = months.get(key) ?? emptyMonth(key);
      months.set(key, month);
      const net = measured[h];
      if (net === null) {
        result.missingHours++;
        continue;
      }
      const step = followHour(input.battery, plan.plannedKw[h], socKwh);
      socKwh = step.socKwh;
      month.hours++;
      month.costWithout += priceFlow(input.tariff, startMs, net);
      month.costWith += priceFlow(input.tariff, startMs, net + step.powerKw);
      month.cycles += step.stockKwh / 2 / input.battery.capacityKwh;
    }
    input.onDay?.(i + 1, dayStarts.length);
  }
  for (const m of months.values()) {
    m.savings = m.costWithout - m.costWith;
    result.costWithout += m.costWithout;
    result.costWith += m.costWith;
    result.cycles += m.cycles;
    result.months.push(m);
  }
  result.savings = result.costWithout - result.costWith;
  result.savingsPerYear = dayStarts.length ? (result.savings * 365) / dayStarts.length : 0;
  return result;
}
