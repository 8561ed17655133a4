import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import { startServer, type RunningServer } from '../../server/src/app.ts';
import { SimulatedClock } from '../../server/src/clock.ts';
import { loadConfig } from '../../server/src/config.ts';
import { createLogger } from '../../server/src/logger.ts';
import { Api } from './api.ts';
import { householdKw, readHousehold, type Household } from './household.ts';
import { Storage } from './physics.ts';
import { setUpSite, STEP_MS, ZONE, type CronMinute, type SiteIds } from './setup.ts';

/**
 * The site simulation: the real server (its store, its HTTP API, its job queue and worker
 * threads) runs on a simulated clock through days of operation at a house whose load and PV are
 * a real household's. Every quarter hour the devices post what they measured, the server's
 * automations do what is due, and the devices follow the step of their plan they read back, as
 * far as their physics allow. Everything the checks use is recorded from the simulation's side.
 */

const HOURS = STEP_MS / 3_600_000;
/** The first simulated day: a Monday in spring, when the panels give enough to store. */
export const FIRST_DAY = '2016-05-02';

export interface SimOptions {
  days: number;
  cronMinute: CronMinute;
  /** Called after each simulated quarter hour. */
  onStep?: (done: number, total: number) => void;
}

/** One quarter hour as it happened (kW consumption positive, SoC at its end). */
export interface StepRecord {
  startMs: number;
  loadKw: number;
  pvKw: number;
  batteryKw: number;
  batterySetpointKw: number | null;
  batterySocKwh: number;
  evKw: number;
  evSetpointKw: number | null;
  evSocKwh: number;
  evPlugged: boolean;
  /** The newest forecasts of the step the server held when it began, or null. */
  loadForecastKw: number | null;
  pvForecastKw: number | null;
  ready: boolean;
}

/** A SoC the device reported. */
export interface SocReport {
  atMs: number;
  kwh: number;
}

export interface AutomationRun {
  automationId: number;
  dueMs: number;
  status: string;
  scheduleJobId: string | null;
}

/** A scheduling job as the simulation read it once it ended. */
export interface PlanRecord {
  jobId: string;
  device: 'battery' | 'ev';
  status: string;
  error: string | null;
  createdMs: number;
  startMs: number;
  stepMs: number;
  warnings: { code?: string; message?: string; field?: string }[];
  /** Present when it finished: per step, kW consumption positive; the SoC at the start in kWh. */
  powerKw?: number[];
  sitePowerKw?: number[];
  socAtStartKwh?: number;
  /** The device's last SoC report at or before the job was queued. */
  lastReport?: SocReport;
}

/** The operator pressing "Compute" for the same plan: when, and the job the server answered with. */
export interface Compute {
  atMs: number;
  jobId: string;
  status: string;
  error: string | null;
}

export interface SiteRun {
  ids: SiteIds;
  startMs: number;
  steps: StepRecord[];
  plans: PlanRecord[];
  /** Each automation run: when it was due and the schedule job it answered with. */
  runs: AutomationRun[];
  reports: { battery: SocReport[]; ev: SocReport[] };
  notifications: { kind: string; job_id: string | null; message: string }[];
  /** Hours of the run without a stored consumption price. */
  priceGaps: string[];
  computes: Compute[];
}

/** Whether the car is at home on its charger: from 18:00 until 07:30 of the next weekday morning. */
export function carHome(tMs: number): boolean {
  const t = DateTime.fromMillis(tMs, { zone: ZONE });
  const minute = t.hour * 60 + t.minute;
  if (minute < 7 * 60 + 30) return t.weekday <= 5;
  return minute >= 18 * 60 && (t.weekday <= 4 || t.weekday === 7);
}

/** The simulated site while it runs. */
class Site {
  readonly battery = new Storage(
    { capacityKwh: 10, powerKw: 5, chargingEfficiency: 0.95, dischargingEfficiency: 0.95, canDischarge: true },
    5,
  );
  readonly car = new Storage({ capacityKwh: 40, powerKw: 7.4, chargingEfficiency: 0.9, dischargingEfficiency: 1, canDischarge: false }, 12);
  readonly steps: StepRecord[] = [];
  readonly plans: PlanRecord[] = [];
  readonly runs: AutomationRun[] = [];
  readonly computes: Compute[] = [];
  readonly reports: SiteRun['reports'] = { battery: [], ev: [] };
  private seen = new Set<string>();
  /** The newest end of a job the last look listed. */
  private lastEndMs = 0;

  /**
   * @param jobsPerLook how many of the newest runs and schedules to list at each look: more than end
   *   between two looks (every-minute plans queue 15 runs and 15 schedules a quarter hour per device).
   */
  constructor(
    readonly api: Api,
    readonly ids: SiteIds,
    readonly series: Household,
    private readonly jobsPerLook: number,
  ) {}

  private post(sensorId: number, value: number, startMs: number, duration: string, unit: string) {
    return this.api.must('POST', `/api/v3_0/sensors/${sensorId}/data`, {
      json: { values: [Math.round(value * 1e4) / 1e4], start: new Date(startMs).toISOString(), duration, unit },
    });
  }

  /** What the meters and devices report at `tMs`: the last quarter hour's power and the SoC now. */
  async report(tMs: number): Promise<void> {
    const last = this.steps.at(-1);
    if (last) {
      const { loadKw, pvKw } = householdKw(this.series, last.startMs);
      await this.post(this.ids.load, loadKw, last.startMs, 'PT15M', 'kW');
      await this.post(this.ids.pv, pvKw, last.startMs, 'PT15M', 'kW');
      // Device power sensors count production as positive.
      await this.post(this.ids.battery.power, -last.batteryKw, last.startMs, 'PT15M', 'kW');
      await this.post(this.ids.ev.power, -last.evKw, last.startMs, 'PT15M', 'kW');
    }
    await this.post(this.ids.battery.soc, this.battery.socPercent, tMs, 'PT0H', '%');
    this.reports.battery.push({ atMs: tMs, kwh: this.battery.socKwh });
    if (carHome(tMs)) {
      await this.post(this.ids.ev.soc, this.car.socPercent, tMs, 'PT0H', '%');
      this.reports.ev.push({ atMs: tMs, kwh: this.car.socKwh });
    }
  }

  /** The newest value of a sensor's step at `tMs` from one kind of source, as a device reads its plan; null when there is none. */
  async read(sensorId: number, tMs: number, sourceType: 'scheduler' | 'forecaster'): Promise<number | null> {
    const res = await this.api.request('GET', `/api/v3_0/sensors/${sensorId}/data`, {
      query: { start: new Date(tMs).toISOString(), duration: 'PT15M', unit: 'kW', 'source-type': sourceType },
    });
    // 422 until that kind of source wrote anything on the sensor.
    if (res.status === 422) return null;
    if (res.status !== 200) throw new Error(`reading sensor ${sensorId} answered ${res.status}: ${JSON.stringify(res.body)}`);
    const value = (res.body.values as (number | null)[])[0];
    return value ?? null;
  }

  /** One quarter hour from `tMs`: the devices follow their plans, the house its series. */
  async act(tMs: number): Promise<void> {
    const home = carHome(tMs);
    // The car comes home at 30 %.
    if (home && !carHome(tMs - STEP_MS)) this.car.socKwh = 12;
    const batteryPlan = await this.read(this.ids.battery.power, tMs, 'scheduler');
    const evPlan = await this.read(this.ids.ev.power, tMs, 'scheduler');
    const loadForecastKw = await this.read(this.ids.load, tMs, 'forecaster');
    const pvForecast = await this.read(this.ids.pv, tMs, 'forecaster');
    const batterySetpointKw = batteryPlan === null ? null : -batteryPlan;
    const evSetpointKw = evPlan === null ? null : -evPlan;
    const batteryKw = this.battery.run(batterySetpointKw ?? 0, HOURS);
    const evKw = home ? this.car.run(evSetpointKw ?? 0, HOURS) : 0;
    const ready = (await this.api.request('GET', '/api/v3_0/health/ready')).status === 200;
    this.steps.push({
      startMs: tMs,
      ...householdKw(this.series, tMs),
      batteryKw,
      batterySetpointKw,
      batterySocKwh: this.battery.socKwh,
      evKw,
      evSetpointKw,
      evSocKwh: this.car.socKwh,
      evPlugged: home,
      loadForecastKw,
      pvForecastKw: pvForecast,
      ready,
    });
  }

  /**
   * The operator asks for the battery's plan from `planStartMs` for 12 hours from a stated SoC, the same
   * request each time, as someone comparing plans does; `settle` waits for the job.
   */
  async compute(tMs: number, planStartMs: number, settle: () => Promise<void>): Promise<void> {
    const body = { start: new Date(planStartMs).toISOString(), duration: 'PT12H', 'flex-model': { 'soc-at-start': '5 kWh' } };
    const res = await this.api.must('POST', `/api/v3_0/sensors/${this.ids.battery.power}/schedules/trigger`, { json: body });
    await settle();
    const job = (await this.api.must('GET', `/api/v3_0/jobs/${res.body.schedule}`)).body;
    this.computes.push({ atMs: tMs, jobId: job.id, status: job.status, error: job.error });
  }

  /**
   * Reads the scheduling jobs and automation runs that ended since the last look, with their
   * results, in one listing: those that ended at or after the newest end of the last look (the
   * jobs that ended at that very time are listed again, and skipped as seen).
   */
  async collectPlans(): Promise<void> {
    const query = {
      queue: 'automation,scheduling',
      include: 'result',
      ended_after: new Date(this.lastEndMs).toISOString(),
      limit: this.jobsPerLook,
    };
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- jobs as the API lists them
    const jobs = (await this.api.must('GET', '/api/v3_0/jobs', { query })).body as any[];
    for (const job of jobs.reverse()) {
      this.lastEndMs = Math.max(this.lastEndMs, Date.parse(job.finished_at));
      const pressed = this.computes.some((c) => c.jobId === job.id);
      if (pressed || this.seen.has(job.id)) continue;
      this.seen.add(job.id);
      if (job.queue === 'automation') {
        const { automationId, dueMs } = job.args;
        this.runs.push({ automationId, dueMs, status: job.status, scheduleJobId: job.result?.schedule_job_id ?? null });
      } else {
        this.plans.push(this.planOf(job));
      }
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a job as the API answers it
  private planOf(job: any): PlanRecord {
    const device = job.sensor_id === this.ids.battery.power ? 'battery' : 'ev';
    const createdMs = Date.parse(job.created_at);
    const spec = job.args.spec;
    const plan: PlanRecord = {
      jobId: job.id,
      device,
      status: job.status,
      error: job.error,
      createdMs,
      startMs: spec.startMs,
      stepMs: spec.stepMs,
      warnings: job.warnings ?? [],
      lastReport: this.reports[device].filter((r) => r.atMs <= createdMs).at(-1),
    };
    const result = job.result;
    if (job.status === 'finished' && result?.devices) {
      plan.powerKw = (result.devices[0].power_mw as number[]).map((v) => v * 1000);
      plan.sitePowerKw = (result.site_power_mw as number[] | undefined)?.map((v) => v * 1000);
      plan.socAtStartKwh = result.devices[0].soc_mwh?.[0] * 1000;
      plan.startMs = result.start_ms;
      plan.stepMs = result.step_ms;
    }
    return plan;
  }
}

/** The hours of the run without a consumption price stored for them. */
async function priceGaps(api: Api, ids: SiteIds, startMs: number, days: number): Promise<string[]> {
  const res = await api.must('GET', `/api/v3_0/sensors/${ids.buyPrice}/data`, {
    query: { start: new Date(startMs).toISOString(), duration: `PT${days * 24}H`, unit: 'EUR/MWh', resolution: 'PT1H' },
  });
  const values = res.body.values as (number | null)[];
  return values.flatMap((v, i) => (v === null ? [new Date(startMs + i * 3_600_000).toISOString()] : []));
}

/** Starts the server over a fresh data folder on the simulated clock. */
async function startSimulatedServer(clock: SimulatedClock): Promise<{ server: RunningServer; dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-sim-'));
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', FLEXSITE_LOG_LEVEL: 'silent', FLEXSITE_DATA_DIR: dir });
  const server = await startServer(config, { log: createLogger('silent'), clock });
  clock.settleWith(() => server.services.jobs.drained());
  return { server, dir };
}

/**
 * Runs the site for `days` from the first simulated Monday (site time), one quarter hour at a time.
 * The operator sets the site up at 23:15, once the server has done its start-up work, presses
 * "Compute" at 23:30 and again at 00:15 (after the server's next hourly tariff work); the house
 * and its devices run from midnight.
 */
export async function simulateSite(options: SimOptions): Promise<SiteRun> {
  const startMs = DateTime.fromISO(FIRST_DAY, { zone: ZONE }).toMillis();
  const clock = new SimulatedClock(startMs - 3 * STEP_MS);
  const { server, dir } = await startSimulatedServer(clock);
  try {
    await clock.runDue();
    const api = new Api(server.url);
    const series = readHousehold();
    const site = new Site(api, await setUpSite(api, series, startMs, options.cronMinute), series, options.cronMinute === '*' ? 100 : 20);
    const settle = () => clock.settle();
    // The devices report from the moment they are set up; the operator presses Compute at 23:30
    // for Monday 06:00–18:00, and again at 00:15 with the same request.
    const planStartMs = startMs + 6 * 3_600_000;
    await site.report(clock.now());
    for (const tMs of [startMs - 2 * STEP_MS, startMs - STEP_MS]) {
      await clock.advanceTo(tMs);
      await site.report(tMs);
      await clock.runDue();
      if (tMs === startMs - 2 * STEP_MS) await site.compute(tMs, planStartMs, settle);
    }
    const total = (options.days * 86_400_000) / STEP_MS;
    for (let i = 0; i < total; i++) {
      const tMs = startMs + i * STEP_MS;
      await clock.advanceTo(tMs);
      await site.report(tMs);
      await clock.runDue();
      if (i === 1) await site.compute(tMs, planStartMs, settle);
      await site.collectPlans();
      await site.act(tMs);
      options.onStep?.(i + 1, total);
    }
    await clock.advanceTo(startMs + total * STEP_MS);
    await site.report(startMs + total * STEP_MS);
    await clock.runDue();
    await site.collectPlans();
    const notifications = (await api.must('GET', '/api/v3_0/notifications', { query: { limit: 1000 } })).body;
    return {
      ids: site.ids,
      startMs,
      steps: site.steps,
      plans: site.plans,
      runs: site.runs,
      reports: site.reports,
      notifications,
      priceGaps: await priceGaps(api, site.ids, startMs, options.days),
      computes: site.computes,
    };
  } finally {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
