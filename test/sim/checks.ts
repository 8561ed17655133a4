import { DateTime } from 'luxon';
import { carHome, type PlanRecord, type SiteRun, type StepRecord } from './site.ts';
import { STEP_MS, TARIFF, ZONE } from './setup.ts';

/**
 * What a simulated run shows, judged from the simulation's own physics and records: each check
 * lists its violations in words a person can follow ("battery plan of 14:17 starts off the
 * grid"), so a failing test says what went wrong, and the bench prints the figures.
 */

const HOURS = STEP_MS / 3_600_000;
const BATTERY_MIN_KWH = 1;
const BATTERY_MAX_KWH = 10;
const EV_TARGET_KWH = 32;
/** Reports are posted in % with four decimals: SoCs agree to within this. */
const SOC_TOLERANCE_KWH = 0.01;
/**
 * How far past a limit rounding may take a SoC: reports carry four decimals of a percent (0.00001
 * kWh of the battery) and plan values six of a kW; ten times that is still no breach.
 */
const LIMIT_TOLERANCE_KWH = 1e-4;
/** A SoC report older than this (two steps) at a plan's start is not the device's state any more. */
const FRESH_MS = 2 * STEP_MS;

const local = (ms: number) => DateTime.fromMillis(ms, { zone: ZONE });
const at = (ms: number) => local(ms).toFormat('ccc HH:mm');

/** The tariff's buying price (EUR/MWh) at a time: the first period that matches, else the base price. */
export function buyPrice(tMs: number): number {
  const t = local(tMs);
  const minute = t.hour * 60 + t.minute;
  const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
  for (const p of TARIFF.periods) {
    if (p.days === 'weekdays' && t.weekday > 5) continue;
    const from = toMinutes(p.from);
    const to = toMinutes(p.to);
    if (from < to ? minute >= from && minute < to : minute >= from || minute < to) return p.price;
  }
  return TARIFF.price;
}

/** Money (EUR) of a net flow over one step: bought at the tariff, sold at the feed-in price. */
export function stepMoney(netKw: number, tMs: number): number {
  return (netKw * HOURS * (netKw >= 0 ? buyPrice(tMs) : TARIFF.feed_in_price)) / 1000;
}

/** The plan of a device in force at a step: the newest finished one queued by then that covers it. */
function planInForce(plans: PlanRecord[], device: PlanRecord['device'], tMs: number): { plan: PlanRecord; index: number } | undefined {
  for (let i = plans.length - 1; i >= 0; i--) {
    const plan = plans[i];
    if (plan.device !== device || !plan.powerKw || plan.createdMs > tMs) continue;
    const index = Math.floor((tMs - plan.startMs) / plan.stepMs);
    if (index >= 0 && index < plan.powerKw.length) return { plan, index };
  }
  return undefined;
}

export interface Money {
  /** EUR over the steps that had a battery plan in force. */
  planned: number;
  realised: number;
  /** How far they may lie apart: the forecast error of load and PV, priced at each step's buying price. */
  band: number;
  /** What the site paid over the whole run, and what it would have paid without the battery. */
  realisedAll: number;
  withoutBattery: number;
  /** Steps without a battery plan in force (counted in the totals, not in planned/realised). */
  unplannedSteps: number;
  /** MAE (kW) of the load-minus-PV forecast the plans priced. */
  planForecastMae: number;
}

/** Planned and realised money, and the band the forecast error of load and PV allows between them. */
export function money(run: SiteRun): Money {
  const m = { planned: 0, realised: 0, band: 0, realisedAll: 0, withoutBattery: 0, unplannedSteps: 0, planForecastMae: 0 };
  for (const s of run.steps) {
    const inflexibleKw = s.loadKw - s.pvKw;
    const realised = stepMoney(inflexibleKw + s.batteryKw + s.evKw, s.startMs);
    m.realisedAll += realised;
    m.withoutBattery += stepMoney(inflexibleKw + s.evKw, s.startMs);
    const battery = planInForce(run.plans, 'battery', s.startMs);
    if (!battery?.plan.sitePowerKw) {
      m.unplannedSteps++;
      continue;
    }
    const { plan, index } = battery;
    const plannedInflexibleKw = plan.sitePowerKw![index] - plan.powerKw![index];
    const ev = planInForce(run.plans, 'ev', s.startMs);
    const plannedEvKw = ev ? ev.plan.powerKw![ev.index] : 0;
    m.planned += stepMoney(plannedInflexibleKw + plan.powerKw![index] + plannedEvKw, s.startMs);
    m.realised += realised;
    const errorKw = Math.abs(plannedInflexibleKw - inflexibleKw);
    // A step's money changes by at most its error times the dearer of its two prices (buying).
    m.band += (errorKw * HOURS * Math.max(buyPrice(s.startMs), TARIFF.feed_in_price)) / 1000;
    m.planForecastMae += errorKw;
  }
  m.planForecastMae /= Math.max(1, run.steps.length - m.unplannedSteps);
  return m;
}

/** Mean absolute error (kW) of the newest forecast the server held for each step as it began. */
export function forecastMae(steps: StepRecord[]): { load: number; pv: number; steps: number } {
  const known = steps.filter((s) => s.loadForecastKw !== null && s.pvForecastKw !== null);
  const mae = (f: (s: StepRecord) => number) => known.reduce((a, s) => a + f(s), 0) / Math.max(1, known.length);
  return {
    load: mae((s) => Math.abs(s.loadForecastKw! - s.loadKw)),
    pv: mae((s) => Math.abs(s.pvForecastKw! - s.pvKw)),
    steps: known.length,
  };
}

/** Plans that start off the 15-minute grid, or from another SoC than the device last reported. */
export function planStarts(plans: PlanRecord[]): { offGrid: string[]; socMismatch: string[] } {
  const offGrid: string[] = [];
  const socMismatch: string[] = [];
  for (const p of plans) {
    const name = `${p.device} plan ${p.jobId.slice(0, 8)} (queued ${at(p.createdMs)})`;
    if (p.startMs % STEP_MS !== 0) offGrid.push(`${name} starts off the grid at ${local(p.startMs).toFormat('ccc HH:mm:ss')}`);
    if (p.socAtStartKwh === undefined) continue;
    const report = p.lastReport;
    const fresh = report !== undefined && report.atMs >= p.startMs - FRESH_MS;
    if (fresh && Math.abs(p.socAtStartKwh - report.kwh) > SOC_TOLERANCE_KWH) {
      socMismatch.push(
        `${name} starts from ${p.socAtStartKwh.toFixed(2)} kWh while ${report.kwh.toFixed(2)} kWh was measured at ${at(report.atMs)}`,
      );
    }
    const said = p.warnings.some((w) => /soc|state of charge/i.test(`${w.code ?? ''} ${w.message ?? ''}`));
    if (!fresh && !said) {
      const last = report ? `${report.kwh.toFixed(2)} kWh at ${at(report.atMs)}` : 'none';
      socMismatch.push(
        `${name} starts from ${p.socAtStartKwh.toFixed(2)} kWh without a fresh measurement (last: ${last}) and says nothing`,
      );
    }
  }
  return { offGrid, socMismatch };
}

/** Steps whose battery SoC left the limits the operator set (10 %–100 % of 10 kWh). */
export function batteryOutOfLimits(steps: StepRecord[]): string[] {
  return steps
    .filter((s) => s.batterySocKwh < BATTERY_MIN_KWH - LIMIT_TOLERANCE_KWH || s.batterySocKwh > BATTERY_MAX_KWH + LIMIT_TOLERANCE_KWH)
    .map((s) => `battery at ${s.batterySocKwh.toFixed(4)} kWh after the step of ${at(s.startMs)}`);
}

/**
 * The car's weekday 07:00 targets: met when the car held 80 % then; a missed one must have been
 * said by one of the session's plans (a `target-missed` warning, or a soc-targets warning) and
 * raised a `target-missed` notification for such a plan.
 */
export function evTargets(run: SiteRun): { met: number; total: number; missedSilently: string[] } {
  let met = 0;
  let total = 0;
  const missedSilently: string[] = [];
  run.steps.forEach((s, k) => {
    const t = local(s.startMs);
    if (k === 0 || t.weekday > 5 || t.hour !== 7 || t.minute !== 0 || !carHome(s.startMs)) return;
    total++;
    const socKwh = run.steps[k - 1].evSocKwh;
    if (socKwh >= EV_TARGET_KWH - SOC_TOLERANCE_KWH) {
      met++;
      return;
    }
    const session = run.plans.filter((p) => p.device === 'ev' && p.createdMs <= s.startMs && p.createdMs > s.startMs - 14 * 3_600_000);
    const said = session.filter((p) => p.warnings.some((w) => w.code === 'target-missed' || w.field === 'soc-targets'));
    const notified = run.notifications.some((n) => n.kind === 'target-missed' && said.some((p) => p.jobId === n.job_id));
    if (!said.length || !notified) {
      missedSilently.push(
        `${at(s.startMs)}: car at ${socKwh.toFixed(2)} kWh (target ${EV_TARGET_KWH} kWh); ` +
          `${said.length ? 'a plan warned' : 'no plan warned'}, ${notified ? 'notified' : 'no notification'}`,
      );
    }
  });
  return { met, total, missedSilently };
}

/**
 * Schedule jobs that automation runs of different quarter hours answered with: reused although the
 * devices had measured anew in between (they report every quarter hour, before the runs due then).
 * Runs within one quarter hour read the same data and may share a job.
 */
export function reusedJobs(run: SiteRun): string[] {
  const byJob = new Map<string, number[]>();
  for (const r of run.runs) if (r.scheduleJobId) byJob.set(r.scheduleJobId, [...(byJob.get(r.scheduleJobId) ?? []), r.dueMs]);
  const quarter = (ms: number) => Math.floor(ms / STEP_MS);
  return [...byJob]
    .filter(([, dues]) => dues.some((due) => quarter(due) !== quarter(dues[0])))
    .map(([id, dues]) => `job ${id.slice(0, 8)} answered the runs of ${dues.map(at).join(', ')}`);
}

/** The operator's repeated "Compute" answered with the job of an earlier press, though prices were written in between. */
export function reusedComputes(run: SiteRun): string[] {
  const [first, ...later] = run.computes;
  return later
    .filter((c) => c.jobId === first.jobId)
    .map(
      (c) => `the Compute of ${at(c.atMs)} got back the job of ${at(first.atMs)} (${first.status}${first.error ? `: ${first.error}` : ''})`,
    );
}

/** Plans and the operator's Computes that failed for want of prices. */
export function pricesMissing(run: SiteRun): string[] {
  const computes = run.computes
    .filter((c) => c.error?.includes('UnknownPricesException'))
    .map((c) => `Compute at ${at(c.atMs)}: ${c.error}`);
  return [...computes, ...failedPlans(run.plans).filter((line) => line.includes('UnknownPricesException'))];
}

/** Plans that failed, and why (the first few in words). */
export const failedPlans = (plans: PlanRecord[]) =>
  plans.filter((p) => p.status === 'failed').map((p) => `${p.device} plan queued ${at(p.createdMs)}: ${p.error}`);

/** Steps at which `/health/ready` did not answer 200. */
export const notReady = (steps: StepRecord[]) => steps.filter((s) => !s.ready).map((s) => at(s.startMs));

/** Steps at which a device found no value of its plan for the step (it then stays idle). */
export function planless(steps: StepRecord[]): { battery: number; car: number } {
  return {
    battery: steps.filter((s) => s.batterySetpointKw === null).length,
    car: steps.filter((s) => s.evPlugged && s.evSetpointKw === null).length,
  };
}
