import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import type { FlexsiteJobs } from '../contracts/jobs.ts';
import type { JobResult, JobWarning } from '../contracts/responses.ts';
import { instantMs } from '../domain/time.ts';
import { conversion, readQuantity } from '../domain/units.ts';
import type { JobQueue } from '../jobs/jobQueue.ts';
import { deviceCapacity, plannedSocTargets } from '../scheduling/recurringTargets.ts';
import { getAsset, type Asset } from '../store/assets.ts';
import { mostRecentBeliefs } from '../store/beliefs.ts';
import type { Sensor } from '../store/sensors.ts';
import { siteSensors } from './assetKpis.ts';
import { roleSensors } from './siteRoles.ts';
import { signConvention } from './loadSign.ts';
import { plansInForce, type DeviceInForce, type StepInForce } from './planInForce.ts';

const H = 3_600_000;
const round3 = (v: number) => Math.round(v * 1000) / 1000;

/** A stretch of the window, ISO in the site's zone. */
interface Span {
  start: string;
  end: string;
}

export interface PlannedStep extends Span {
  /** kW, consumption positive (charging a battery is positive). */
  power_kw: number;
  /** The state of charge the plan has at the step's start and end (kWh); null when its job is gone. */
  soc_start_kwh: number | null;
  soc_end_kwh: number | null;
  job_id: string;
}

export interface PlannedDevice {
  sensor_id: number;
  name: string;
  asset: string;
  steps: PlannedStep[];
  /** Where no plan is in force for the device: not zero, unknown. */
  no_plan: Span[];
  /**
   * A state-of-charge target of a plan in force and whether that plan reaches it; or one the
   * device's stored flex-model or recurring targets set that no plan in force holds (`job_id` and
   * `met` null: not planned yet).
   */
  targets: { at: string; soc_kwh: number; job_id: string | null; met: boolean | null }[];
}

export interface PlanAhead {
  asset_id: number;
  timezone: string;
  now: string;
  start: string;
  end: string;
  sign: 'consumption positive';
  currency: string | null;
  devices: PlannedDevice[];
  /** The prices each step's plan was made against (currency per MWh). */
  prices: (Span & { consumption: number; production: number; job_id: string })[];
  no_prices: Span[];
  forecasts: { sensor_id: number; name: string; role: 'pv' | 'load'; values: (Span & { power_kw: number })[]; no_forecast: Span[] }[];
  plans: { job_id: string; made_at: string; scheduler: string | null; fallback: boolean; degraded: boolean; warnings: JobWarning[] }[];
}

type Jobs = Pick<JobQueue<FlexsiteJobs>, 'get'>;

/** The parts of [startMs, endMs) that none of the (time-ordered) intervals covers. */
function uncovered(intervals: { startMs: number; endMs: number }[], startMs: number, endMs: number) {
  const gaps: { startMs: number; endMs: number }[] = [];
  let at = startMs;
  for (const i of intervals) {
    if (i.startMs > at) gaps.push({ startMs: at, endMs: Math.min(i.startMs, endMs) });
    at = Math.max(at, i.endMs);
  }
  if (at < endMs) gaps.push({ startMs: at, endMs });
  return gaps.filter((g) => g.endMs > g.startMs);
}

/** The results of the jobs of these steps' plans, by job id (undefined for a job no longer kept). */
async function jobResults(jobs: Jobs, steps: StepInForce[]) {
  const ids = new Set(steps.flatMap((s) => s.devices.map((d) => d.plan.jobId)));
  const results = new Map<string, JobResult | undefined>();
  for (const id of ids) {
    const job = await jobs.get(id);
    results.set(id, job?.queue === 'scheduling' ? (job.result ?? undefined) : undefined);
  }
  return results;
}

/** A device's steps in force, its gaps and the targets of its plans that fall within the steps they hold. */
function plannedDevice(
  sensor: Sensor & { asset: string },
  held: DeviceInForce[],
  results: Map<string, JobResult | undefined>,
  window: { startMs: number; endMs: number; iso: (ms: number) => string },
): PlannedDevice {
  const { iso } = window;
  const steps = held.map((d) => {
    const startMs = d.plan.startMs + d.index * d.plan.stepMs;
    const soc = results.get(d.plan.jobId)?.devices[d.device]?.soc_mwh;
    const socAt = (i: number) => (soc?.[i] === undefined ? null : round3(soc[i] * 1000));
    return { d, startMs, endMs: startMs + d.plan.stepMs, soc: [socAt(d.index), socAt(d.index + 1)] };
  });
  const heldBy = new Map(steps.map((s) => [s.endMs, s.d.plan.jobId]));
  const targets = [...new Set(held.map((d) => d.plan.jobId))].flatMap((jobId) => {
    const result = results.get(jobId);
    const device = result?.devices.find((x) => x.sensor_id === sensor.id);
    const missed = new Set(
      (result?.unresolved ?? [])
        .filter((u) => u.sensor === sensor.id)
        .flatMap((u) => (u['soc-targets'] ?? []).map((s) => instantMs(s.datetime))),
    );
    return (device?.soc_targets ?? []).flatMap((t) => {
      const atMs = t.atMs ?? t.endMs ?? t.startMs;
      // Only where this plan is the one in force: a superseded plan's target is not the site's.
      if (atMs === undefined || heldBy.get(atMs) !== jobId) return [];
      return [{ at: iso(atMs), soc_kwh: round3(t.valueMwh * 1000), job_id: jobId, met: !missed.has(atMs) }];
    });
  });
  return {
    sensor_id: sensor.id,
    name: sensor.name,
    asset: sensor.asset,
    steps: steps.map((s) => ({
      start: iso(s.startMs),
      end: iso(s.endMs),
      power_kw: round3(s.d.plan.series.devices[s.d.device].powerMw[s.d.index] * 1000),
      soc_start_kwh: s.soc[0],
      soc_end_kwh: s.soc[1],
      job_id: s.d.plan.jobId,
    })),
    no_plan: uncovered(steps, window.startMs, window.endMs).map((g) => ({ start: iso(g.startMs), end: iso(g.endMs) })),
    targets,
  };
}

/** Whether a stored soc-target is one at an instant (not a sensor's). */
const isTargetAt = (t: unknown): t is { datetime: string; value: string | number } =>
  typeof t === 'object' &&
  t !== null &&
  typeof (t as { datetime?: unknown }).datetime === 'string' &&
  ['string', 'number'].includes(typeof (t as { value?: unknown }).value);

/** The targets the device's stored flex-model and recurring targets set within the window that no plan in force holds. */
async function unplannedTargets(
  db: Knex,
  asset: Asset,
  held: PlannedDevice['targets'],
  window: { startMs: number; endMs: number; iso: (ms: number) => string },
): Promise<PlannedDevice['targets']> {
  const stored: unknown = asset.flex_model['soc-targets'];
  const listed = Array.isArray(stored) ? stored.filter(isTargetAt) : [];
  const recurring = await plannedSocTargets(db, asset, Array.isArray(stored) ? stored : undefined, window);
  const { socUnit } = await deviceCapacity(db, asset);
  const planned = new Set(held.map((t) => instantMs(t.at)));
  return [...listed, ...('added' in recurring ? recurring.added : [])].flatMap((t) => {
    const atMs = instantMs(t.datetime);
    const mwh = readQuantity(t.value, 'MWh', socUnit);
    if (atMs === undefined || typeof mwh !== 'number' || atMs <= window.startMs || atMs > window.endMs || planned.has(atMs)) return [];
    return [{ at: window.iso(atMs), soc_kwh: round3(mwh * 1000), job_id: null, met: null }];
  });
}

/** The site's PV and house-load forecasts in the window, as known now, in kW consumption positive. */
async function forecasts(
  db: Knex,
  sensors: Sensor[],
  window: { startMs: number; endMs: number; nowMs: number; iso: (ms: number) => string },
) {
  const { startMs, endMs, nowMs, iso } = window;
  const out: PlanAhead['forecasts'] = [];
  for (const { sensor, role } of await roleSensors(db, sensors)) {
    if (role !== 'pv' && role !== 'load') continue;
    const res = sensor.event_resolution_ms;
    const toKw = conversion(sensor.unit, 'kW', res);
    if (!toKw) continue;
    const sign = signConvention(sensor) === 'consumption positive' ? 1 : -1;
    const beliefs = await mostRecentBeliefs(db, {
      sensorId: sensor.id,
      startMs,
      endMs,
      overlapping: true,
      beliefsBeforeMs: nowMs,
      sourceTypes: ['forecaster'],
    });
    const values = beliefs.map((b) => ({
      startMs: b.eventStartMs,
      endMs: b.eventStartMs + res,
      kw: sign * (toKw.scale * b.value + toKw.offset),
    }));
    out.push({
      sensor_id: sensor.id,
      name: sensor.name,
      role,
      values: values.map((v) => ({ start: iso(v.startMs), end: iso(v.endMs), power_kw: round3(v.kw) })),
      no_forecast: uncovered(values, startMs, endMs).map((g) => ({ start: iso(g.startMs), end: iso(g.endMs) })),
    });
  }
  return out;
}

/** The plans in force in the window with their job's scheduler and warnings; degraded when made by the fallback or with warnings. */
function plansOf(steps: StepInForce[], results: Map<string, JobResult | undefined>, iso: (ms: number) => string): PlanAhead['plans'] {
  const plans = new Map(steps.flatMap((s) => s.devices.map((d) => [d.plan.jobId, d.plan])));
  return [...plans.values()]
    .sort((a, b) => b.beliefTimeMs - a.beliefTimeMs)
    .map((plan) => {
      const result = results.get(plan.jobId);
      const warnings = result?.warnings ?? [];
      return {
        job_id: plan.jobId,
        made_at: iso(plan.beliefTimeMs),
        scheduler: result?.scheduler_info?.scheduler ?? null,
        fallback: plan.fallback,
        degraded: plan.fallback || warnings.length > 0,
        warnings,
      };
    });
}

/**
 * The plan of a site for the next hours, from the start of the current hour to `hours` after now
 * (rounded up to the hour): per schedulable device the power and state of charge of the plan in
 * force at each step (see `planInForce.ts`) and the targets those plans hold, where no plan is
 * in force (not zero), the prices the plans were made against, the PV and house-load forecasts
 * known now, and the plans in force with their warnings. Times in the site's zone; power in kW,
 * consumption positive.
 */
export async function planAhead(db: Knex, jobs: Jobs, assetId: number, window: { nowMs: number; hours: number }): Promise<PlanAhead> {
  const { nowMs, hours } = window;
  const { sensors, zone } = await siteSensors(db, assetId);
  const iso = (ms: number) => DateTime.fromMillis(ms, { zone }).toISO()!;
  const startMs = DateTime.fromMillis(nowMs, { zone }).startOf('hour').toMillis();
  const endMs = startMs + Math.ceil((nowMs + hours * H - startMs) / H) * H;
  const steps = await plansInForce(
    db,
    sensors.map((s) => s.id),
    startMs,
    endMs,
  );
  const results = await jobResults(jobs, steps);
  const held = new Map<number, DeviceInForce[]>();
  for (const s of steps) for (const d of s.devices) held.set(d.sensorId, [...(held.get(d.sensorId) ?? []), d]);
  const devices: PlannedDevice[] = [];
  for (const sensor of sensors) {
    const asset = (await getAsset(db, sensor.generic_asset_id))!;
    // A device with a flex-model but no plan in force is shown too: as having none.
    if (!held.has(sensor.id) && !(Object.keys(asset.flex_model).length && signConvention(sensor))) continue;
    const device = plannedDevice({ ...sensor, asset: asset.name }, held.get(sensor.id) ?? [], results, { startMs, endMs, iso });
    device.targets.push(...(await unplannedTargets(db, asset, device.targets, { startMs, endMs, iso })));
    device.targets.sort((a, b) => (a.at < b.at ? -1 : 1));
    devices.push(device);
  }
  const priced = steps.map((s) => ({ s, startMs: s.startMs, endMs: s.startMs + s.plan.stepMs }));
  const currencies = new Set(steps.map((s) => s.plan.currency));
  return {
    asset_id: assetId,
    timezone: zone,
    now: iso(nowMs),
    start: iso(startMs),
    end: iso(endMs),
    sign: 'consumption positive',
    currency: currencies.size === 1 ? [...currencies][0] : null,
    devices,
    prices: priced.map(({ s, startMs: t, endMs: e }) => ({
      start: iso(t),
      end: iso(e),
      consumption: s.plan.series.consumptionPrice[s.index],
      production: (s.plan.series.productionPrice ?? s.plan.series.consumptionPrice)[s.index],
      job_id: s.plan.jobId,
    })),
    no_prices: uncovered(priced, startMs, endMs).map((g) => ({ start: iso(g.startMs), end: iso(g.endMs) })),
    forecasts: await forecasts(db, sensors, { startMs, endMs, nowMs, iso }),
    plans: plansOf(steps, results, iso),
  };
}
