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
 * the real storage scheduler plans each battery size over the next 48 hours against those
 * forecasts and the prices known at `now`, and each battery then follows the first day of its plan
 * against what was *measured* that day (read once the clock has passed it), kept within its power
 * and state-of-charge limits. Every hour's grid flow is priced with and without each battery. The
 * sizes share every read and forecast: they differ only in their plans and what followed.
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

/** Prices in EUR/MWh per hour, buying and selling. */
export interface HourPrices<T = number> {
  buy: T[];
  sell: T[];
}

/** Where a replay's prices come from: what a plan made at `now` may know, and what each hour was traded at. */
export interface ReplayPrices {
  /**
   * The `hours` from `nowMs` as known at `nowMs`; `filled` counts the first day's hours whose price
   * was not known yet and was taken from the day before.
   */
  knownAt(nowMs: number, hours: number, firstDayHours: number): Promise<HourPrices & { filled: number }>;
  /** What the `hours` from `startMs` were traded at (null: no price). */
  actual(startMs: number, hours: number): Promise<HourPrices<number | null>>;
}

export interface ReplayInput {
  load: Sensor;
  /** The site's PV, consumption or production signed as its sensor says; null: none. */
  pv: Sensor | null;
  /** The sizes replayed side by side. */
  batteries: ReplayBattery[];
  prices: ReplayPrices;
  /** Replayed from the local midnight at or before `fromMs` to the one at or after `toMs`. */
  fromMs: number;
  toMs: number;
  location: { latitude: number; longitude: number } | null;
  country: string | null;
  /** Called after each replayed day. */
  onDay?: (done: number, total: number) => Promise<void> | void;
}

/** One month without a battery. */
export interface ReplayMonth {
  /** YYYY-MM in the site's time zone. */
  month: string;
  /** Hours measured and priced (the others count in no cost). */
  hours: number;
  costWithout: number;
}

/** One month with one battery. */
export interface BatteryMonth {
  month: string;
  costWith: number;
  savings: number;
  cycles: number;
}

export interface ReplayDay {
  startMs: number;
  /** The battery power planned at the day's start, kW per hour (charging positive), the day's hours kept. */
  plannedKw: number[];
}

/** What one battery size did over the replay. */
export interface BatteryOutcome {
  battery: ReplayBattery;
  months: BatteryMonth[];
  days: ReplayDay[];
  costWith: number;
  savings: number;
  /** Savings scaled to 365 days. */
  savingsPerYear: number;
  cycles: number;
}

export interface ReplayResult {
  months: ReplayMonth[];
  costWithout: number;
  batteries: BatteryOutcome[];
  /** Days replayed. */
  dayCount: number;
  /** Hours without a measured load (or PV) value or without a price, left out of every cost. */
  missingHours: number;
  /** Hours a forecast had nothing to go on (planned as 0 kW). */
  unforecastHours: number;
  /** Hours planned with a price not known yet at the plan's time (the day before's taken instead). */
  unpricedHours: number;
}

/**
 * The replay's only read of measurements: a sensor's hourly kW, consumption positive, over
 * [fromMs, nowMs), as known at `nowMs` (events starting before it, beliefs formed by then).
 */
export async function measuredBefore(db: Knex, sensor: Sensor, fromMs: number, nowMs: number): Promise<(number | null)[]> {
  const values = await hourly(db, sensor, 'kW', fromMs, nowMs - fromMs, nowMs);
  const sign = signConvention(sensor) === 'production positive' ? -1 : 1;
  return values.map((v) => (v === null ? null : sign * v));
}

/** A sensor's values per hour in `unit` over [fromMs, fromMs + durationMs), believed before `beliefsBeforeMs` if given. */
async function hourly(db: Knex, sensor: Sensor, unit: string, fromMs: number, durationMs: number, beliefsBeforeMs?: number) {
  const read = await readSensorData(db, sensor, { startMs: fromMs, durationMs, unit, stepMs: HOUR, beliefsBeforeMs });
  if ('problems' in read) throw new Error(`Cannot read sensor ${sensor.id}: ${JSON.stringify(read.problems)}`);
  return read.values;
}

/** A time-of-use tariff's prices: known ahead by definition. */
export function timeOfUsePrices(tariff: ReplayTariff): ReplayPrices {
  const hours = (startMs: number, n: number): HourPrices => ({
    buy: Array.from({ length: n }, (_, i) => tariffPriceAt(tariff.buying, startMs + i * HOUR)),
    sell: new Array<number>(n).fill(tariff.feedInPrice),
  });
  return {
    knownAt: (nowMs, n) => Promise.resolve({ ...hours(nowMs, n), filled: 0 }),
    actual: (startMs, n) => Promise.resolve(hours(startMs, n)),
  };
}

/**
 * A day-ahead price series (a sensor of prices): a plan knows the prices published by its time
 * (today's, at midnight; tomorrow's only once published), and takes the same hour of the day
 * before for those not known yet. Energy sold earns `feedInPrice`, or the day-ahead price itself
 * when null.
 */
export function dayAheadPrices(db: Knex, sensor: Sensor, feedInPrice: number | null): ReplayPrices {
  const sell = (buy: (number | null)[]) => (feedInPrice === null ? buy : buy.map(() => feedInPrice));
  return {
    async knownAt(nowMs, n, firstDayHours) {
      const raw = await hourly(db, sensor, 'EUR/MWh', nowMs - 24 * HOUR, (24 + n) * HOUR, nowMs);
      const filled = [...raw];
      for (let j = 24; j < filled.length; j++) filled[j] ??= filled[j - 24];
      const buy = filled.slice(24);
      if (buy.some((v) => v === null)) {
        throw new Error(
          `No price of sensor ${sensor.id} was known at ${new Date(nowMs).toISOString()} for the day ahead or the day before.`,
        );
      }
      const unknown = raw.slice(24, 24 + firstDayHours).filter((v) => v === null).length;
      return { buy: buy as number[], sell: sell(buy) as number[], filled: unknown };
    },
    async actual(startMs, n) {
      const buy = await hourly(db, sensor, 'EUR/MWh', startMs, n * HOUR);
      return { buy, sell: sell(buy) };
    },
  };
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

/** The net load forecast at `nowMs` for PLAN_HOURS (0 kW where nothing could be forecast), and how many of the first day's hours that was. */
async function forecastNet(db: Knex, pool: WorkerPool, input: ReplayInput, nowMs: number, dayHours: number) {
  const load = await forecastFrom(db, pool, input, input.load, nowMs, PLAN_HOURS);
  const pv = input.pv ? await forecastFrom(db, pool, input, input.pv, nowMs, PLAN_HOURS) : null;
  let unforecast = 0;
  const netKw = load.map((l, i) => {
    if (i < dayHours && (l === null || (pv && pv[i] === null))) unforecast++;
    return (l ?? 0) + (pv?.[i] ?? 0);
  });
  return { netKw, unforecast };
}

/** The plan of a battery (kW per hour, charging positive) made at `nowMs` for PLAN_HOURS. */
async function planBattery(pool: WorkerPool, battery: ReplayBattery, netKw: number[], prices: HourPrices, socKwh: number, nowMs: number) {
  const oneWay = Math.sqrt(battery.roundTripEfficiency);
  const each = (v: number) => new Array<number>(PLAN_HOURS).fill(v);
  const problem: StorageProblem = {
    stepCount: PLAN_HOURS,
    stepHours: 1,
    devices: [
      {
        name: 'battery',
        socAtStartMwh: socKwh / 1000,
        socMinMwh: 0,
        socMaxMwh: battery.capacityKwh / 1000,
        socMinimaMwh: null,
        socMaximaMwh: null,
        socTargetsMwh: null,
        consumptionCapacityMw: each(battery.powerKw / 1000),
        productionCapacityMw: each(battery.powerKw / 1000),
        chargingEfficiency: each(oneWay),
        dischargingEfficiency: each(oneWay),
        storageEfficiency: each(1),
        stockDeltaMw: null,
      },
    ],
    inflexiblePowerMw: netKw.map((v) => v / 1000),
    siteConsumptionCapacityMw: null,
    siteProductionCapacityMw: null,
    consumptionPrice: prices.buy,
    productionPrice: prices.sell,
    preferChargingSooner: true,
  };
  const outcome = await pool.run('storageSchedule', problem);
  if (!outcome.ok) throw new Error(`The scheduler could not plan ${new Date(nowMs).toISOString()}: ${outcome.message}`);
  return outcome.schedule.devices[0].powerMw.map((p) => p * 1000);
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

/** The EUR of an hour's grid flow (kW over one hour, consumption positive) at its prices in EUR/MWh. */
const priceFlow = (kw: number, buy: number, sell: number) => (kw > 0 ? kw * buy : kw * sell) / 1000;

/** One battery size as the replay runs: its state of charge, and its months and days so far. */
interface BatteryRun {
  battery: ReplayBattery;
  socKwh: number;
  months: Map<string, BatteryMonth>;
  days: ReplayDay[];
}

/** Sums of the replay without a battery, and what it could not count. */
interface Totals {
  months: Map<string, ReplayMonth>;
  missingHours: number;
  unforecastHours: number;
  unpricedHours: number;
}

/** Replays one day from `nowMs`: plans every size from the day's forecast, then follows and prices what was measured. */
async function replayDay(db: Knex, pool: WorkerPool, input: ReplayInput, runs: BatteryRun[], totals: Totals, nowMs: number) {
  const zone = input.load.timezone;
  const dayEndMs = DateTime.fromMillis(nowMs, { zone }).plus({ days: 1 }).toMillis();
  const hours = Math.round((dayEndMs - nowMs) / HOUR);
  const forecast = await forecastNet(db, pool, input, nowMs, hours);
  const known = await input.prices.knownAt(nowMs, PLAN_HOURS, hours);
  totals.unforecastHours += forecast.unforecast;
  totals.unpricedHours += known.filled;
  const plans = await Promise.all(runs.map((run) => planBattery(pool, run.battery, forecast.netKw, known, run.socKwh, nowMs)));
  runs.forEach((run, r) => run.days.push({ startMs: nowMs, plannedKw: plans[r].slice(0, hours) }));
  // The clock has passed the day: what was measured in it, and what it was traded at, is known now.
  const measured = await netLoadBefore(db, input, nowMs, dayEndMs);
  const traded = await input.prices.actual(nowMs, hours);
  for (let h = 0; h < hours; h++) {
    const key = DateTime.fromMillis(nowMs + h * HOUR, { zone }).toFormat('yyyy-MM');
    const month = totals.months.get(key) ?? { month: key, hours: 0, costWithout: 0 };
    totals.months.set(key, month);
    const [net, buy, sell] = [measured[h], traded.buy[h], traded.sell[h]];
    if (net === null || buy === null || sell === null) {
      totals.missingHours++;
      continue;
    }
    month.hours++;
    month.costWithout += priceFlow(net, buy, sell);
    runs.forEach((run, r) => {
      const step = followHour(run.battery, plans[r][h], run.socKwh);
      run.socKwh = step.socKwh;
      const kept = run.months.get(key) ?? { month: key, costWith: 0, savings: 0, cycles: 0 };
      run.months.set(key, kept);
      kept.costWith += priceFlow(net + step.powerKw, buy, sell);
      kept.cycles += step.stockKwh / 2 / run.battery.capacityKwh;
    });
  }
}

/** One size's outcome from its run, against the months without a battery. */
function outcomeOf(run: BatteryRun, months: ReplayMonth[], dayCount: number): BatteryOutcome {
  const byMonth = months.map((m) => {
    const w = run.months.get(m.month) ?? { month: m.month, costWith: 0, savings: 0, cycles: 0 };
    return { ...w, savings: m.costWithout - w.costWith };
  });
  const sum = (f: (m: BatteryMonth) => number) => byMonth.reduce((acc, m) => acc + f(m), 0);
  const savings = sum((m) => m.savings);
  return {
    battery: run.battery,
    months: byMonth,
    days: run.days,
    costWith: sum((m) => m.costWith),
    savings,
    savingsPerYear: dayCount ? (savings * 365) / dayCount : 0,
    cycles: sum((m) => m.cycles),
  };
}

/** Replays the batteries over the period (see the module's comment). */
export async function replayBatteries(db: Knex, pool: WorkerPool, input: ReplayInput): Promise<ReplayResult> {
  const first = DateTime.fromMillis(input.fromMs, { zone: input.load.timezone }).startOf('day');
  const dayStarts: number[] = [];
  for (let d = first; d.toMillis() < input.toMs; d = d.plus({ days: 1 })) dayStarts.push(d.toMillis());
  const runs: BatteryRun[] = input.batteries.map((battery) => ({ battery, socKwh: 0, months: new Map(), days: [] }));
  const totals: Totals = { months: new Map(), missingHours: 0, unforecastHours: 0, unpricedHours: 0 };
  for (const [i, nowMs] of dayStarts.entries()) {
    await replayDay(db, pool, input, runs, totals, nowMs);
    await input.onDay?.(i + 1, dayStarts.length);
  }
  const months = [...totals.months.values()];
  return {
    months,
    costWithout: months.reduce((acc, m) => acc + m.costWithout, 0),
    batteries: runs.map((run) => outcomeOf(run, months, dayStarts.length)),
    dayCount: dayStarts.length,
    missingHours: totals.missingHours,
    unforecastHours: totals.unforecastHours,
    unpricedHours: totals.unpricedHours,
  };
}
