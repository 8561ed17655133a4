import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { descendantIds, getAsset } from '../store/assets.ts';
import { forbidden } from '../errors.ts';
import { sensorStats } from '../store/sensorStats.ts';
import { getSensor, listSensors, type Sensor, type SensorInContext } from '../store/sensors.ts';
import { byPeriod, figures, partFigures, type KpiFigures, type PartFigures } from './moneyFigures.ts';
import { currencyInForce, plansInForce } from './planInForce.ts';
import { gridMeters, roleSensors } from './siteRoles.ts';
import { stepMoney, type StepMoney } from './stepMoney.ts';

export type { KpiFigures } from './moneyFigures.ts';

/** A plan that is in force at some step of the window. */
export interface PlanCounted {
  job_id: string;
  made_at: string;
  start: string;
  end: string;
  fallback: boolean;
  /** The steps of the window it is in force at (for some device). */
  steps: number;
}

/** A part of the site's figures with the name to show: a device's sensor and asset, or the rest of the site. */
export type NamedPartFigures = PartFigures & { name: string; asset: string | null };

export interface AssetKpis {
  asset_id: number;
  currency: string | null;
  /** Where the realised figures' rest of the site comes from: the grid meters less the devices, or the plans' forecast. */
  rest_of_site: 'measured' | 'forecast';
  timezone: string;
  /** The time the figures were made at: steps starting before it are past, the rest as planned now. */
  now: string;
  start: string;
  end: string;
  total: KpiFigures;
  so_far: KpiFigures;
  ahead: KpiFigures;
  days: (KpiFigures & { period: string; devices: NamedPartFigures[] })[];
  months: (KpiFigures & { period: string })[];
  devices: NamedPartFigures[];
  plans: PlanCounted[];
}

/** The plans counted in these steps, newest first. */
function plansCounted(steps: StepMoney[], schedules: Map<string, Omit<PlanCounted, 'steps'>>): PlanCounted[] {
  const counts = new Map<string, number>();
  for (const s of steps) for (const job of s.jobs) counts.set(job, (counts.get(job) ?? 0) + 1);
  return [...counts.entries()]
    .map(([job, count]) => ({ ...schedules.get(job)!, steps: count }))
    .sort((a, b) => (a.made_at < b.made_at ? 1 : a.made_at > b.made_at ? -1 : 0));
}

/** The sensors of a site and the assets below it, first made first, and its zone: that of the first (UTC without any). */
export async function siteSensors(db: Knex, assetId: number): Promise<{ sensors: Sensor[]; zone: string }> {
  const sensors = (await Promise.all((await descendantIds(db, assetId)).map((id) => listSensors(db, { assetId: id })))).flat();
  sensors.sort((a, b) => a.id - b.id);
  return { sensors, zone: sensors[0]?.timezone ?? 'UTC' };
}

/** Each part named: a device by its sensor's and asset's names, the rest of the site as such. */
async function named(db: Knex, parts: PartFigures[], sensors: Sensor[]): Promise<NamedPartFigures[]> {
  const byId = new Map(sensors.map((s) => [s.id, s]));
  return Promise.all(
    parts.map(async (p) => {
      const sensor = p.sensor_id === null ? undefined : byId.get(p.sensor_id);
      const asset = sensor && (await getAsset(db, sensor.generic_asset_id));
      return { ...p, name: sensor?.name ?? 'Rest of the site', asset: asset?.name ?? null };
    }),
  );
}

/**
 * The money figures of the schedules of an asset and the assets below it over the window: in
 * total, begun so far and ahead of `nowMs`, per day (with each device) and month in the site's
 * zone, per device, and which plans count. Each device step counts as the plan in force at it
 * has it (see `planInForce.ts`), so a plan made now changes no figure of a step already begun.
 */
export async function assetKpis(db: Knex, assetId: number, window: { startMs: number; endMs: number; nowMs: number }): Promise<AssetKpis> {
  const { startMs, endMs, nowMs } = window;
  const { sensors, zone } = await siteSensors(db, assetId);
  const inForce = await plansInForce(
    db,
    sensors.map((s) => s.id),
    startMs,
    endMs,
  );
  // Realised money prices the site's measured net grid flow, as the period's money does.
  const grid = gridMeters(await roleSensors(db, sensors));
  const steps = await stepMoney(db, inForce, endMs, grid);
  const iso = (ms: number) => DateTime.fromMillis(ms, { zone }).toISO()!;
  const schedules = new Map(
    inForce
      .flatMap((s) => s.devices)
      .map(({ plan }) => [
        plan.jobId,
        { job_id: plan.jobId, made_at: iso(plan.beliefTimeMs), start: iso(plan.startMs), end: iso(plan.endMs), fallback: plan.fallback },
      ]),
  );
  const days = byPeriod(steps, zone, 'yyyy-MM-dd');
  return {
    asset_id: assetId,
    currency: currencyInForce(inForce),
    rest_of_site: grid.length ? 'measured' : 'forecast',
    timezone: zone,
    now: iso(nowMs),
    start: iso(startMs),
    end: iso(endMs),
    total: figures(steps, nowMs, zone),
    so_far: figures(
      steps.filter((s) => s.startMs < nowMs),
      nowMs,
      zone,
    ),
    ahead: figures(
      steps.filter((s) => s.startMs >= nowMs),
      nowMs,
      zone,
    ),
    days: await Promise.all(
      days.map(async ([period, list]) => ({
        period,
        ...figures(list, nowMs, zone),
        devices: await named(db, partFigures(list, nowMs), sensors),
      })),
    ),
    months: byPeriod(steps, zone, 'yyyy-MM').map(([period, list]) => ({ period, ...figures(list, nowMs, zone) })),
    devices: await named(db, partFigures(steps, nowMs), sensors),
    plans: plansCounted(steps, schedules),
  };
}

/** One of FlexMeasures 1.0's sensor KPIs: a daily sensor's values over the window, reduced by a function. */
export interface SensorKpi {
  title: string;
  unit: string;
  sensor: number;
  downsample_value: number;
  downsample_function: 'sum' | 'min' | 'max' | 'mean';
}

/**
 * The asset's `sensors_to_show_as_kpis` over the window, as 1.0 computes them: the statistics of
 * the first source with data (0 without any), by the KPI's function, else the mean for a `%`
 * sensor and the sum for others; rounded to 2 decimals. Sensors deleted since are left out.
 * @param mayRead whether the caller may read a sensor (checked when the list was stored, and again
 *   here: a KPI must not show what its reader cannot see).
 */
export async function sensorKpis(
  db: Knex,
  asset: { attributes: Record<string, unknown> },
  window: { startMs: number; endMs: number },
  mayRead: (sensor: SensorInContext) => boolean,
): Promise<SensorKpi[]> {
  const kpis = (asset.attributes.sensors_to_show_as_kpis ?? []) as {
    title: string;
    sensor: number;
    function?: SensorKpi['downsample_function'];
  }[];
  const out: SensorKpi[] = [];
  for (const kpi of kpis) {
    const sensor = await getSensor(db, kpi.sensor);
    if (!sensor) continue;
    if (!mayRead(sensor)) throw forbidden();
    const fn = kpi.function ?? (sensor.unit === '%' ? 'mean' : 'sum');
    const [first] = await sensorStats(db, sensor.id, window);
    const value = first ? first[fn] : 0;
    out.push({
      title: kpi.title,
      unit: sensor.unit,
      sensor: sensor.id,
      downsample_value: Math.round(value * 100) / 100,
      downsample_function: fn,
    });
  }
  return out;
}
