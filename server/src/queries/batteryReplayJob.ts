import type { Knex } from 'knex';
import type { BatteryReplayResult } from '../contracts/batteryReplay.ts';
import type { BatteryReplayJobArgs, FlexsiteJobs } from '../contracts/jobs.ts';
import { JobFailure, type JobHandler } from '../jobs/jobQueue.ts';
import { describePrincipal, resolvePrincipal } from '../policies/principal.ts';
import { firstRefused, type Reference } from '../policies/references.ts';
import { getAsset } from '../store/assets.ts';
import { getSensor } from '../store/sensors.ts';
import type { WorkerPool } from '../workers/workerPool.ts';
import { dayAheadPrices, replayBatteries, timeOfUsePrices, type ReplayResult } from './batteryReplay.ts';
import { replayPlace } from './replaySite.ts';

/** What a replay reads, each for reading: the site, its load and PV sensors, and a price sensor. */
export function replayReferences(args: BatteryReplayJobArgs): Reference[] {
  const sensor = (id: number, field: string): Reference => ({ kind: 'sensor', id, use: 'read', location: 'json', field });
  return [
    { kind: 'asset', id: args.assetId, use: 'read', location: 'path', field: 'id' },
    sensor(args.loadSensorId, 'load'),
    ...(args.pvSensorId === null ? [] : [sensor(args.pvSensorId, 'pv')]),
    ...(args.tariff.kind === 'day-ahead' ? [sensor(args.tariff.sensorId, 'tariff.sensor')] : []),
  ];
}

/** Re-checks, when the job runs, that its principal and the site's account may still read all it reads. */
async function assertMayRead(db: Knex, args: BatteryReplayJobArgs, accountId: number | null) {
  const principal = await resolvePrincipal(db, args.principal);
  if (typeof principal === 'string') throw new JobFailure('PermissionDenied', `${principal}; nothing was replayed.`);
  const refused = await firstRefused(db, principal, replayReferences(args), undefined, accountId);
  if (refused) {
    throw new JobFailure(
      'PermissionDenied',
      `${describePrincipal(args.principal)} or the site's account may no longer read ${refused.kind} ${refused.id}; nothing was replayed.`,
    );
  }
}

const cents = (v: number) => Math.round(v * 100) / 100;

/** The words for what made the replay less than plain measured history. */
function warningsOf(r: ReplayResult): string[] {
  const out: string[] = [];
  if (r.missingHours) out.push(`${r.missingHours} hours had no measured load (or PV) or no price; they count in no cost.`);
  if (r.unforecastHours) out.push(`${r.unforecastHours} hours were planned without a forecast (too little history before them): as 0 kW.`);
  if (r.unpricedHours) out.push(`${r.unpricedHours} hours were planned before their price was known: with the day before's.`);
  return out;
}

/** The job's result in the wire's words, money in EUR to the cent. */
export function presentReplay(args: BatteryReplayJobArgs, r: ReplayResult): BatteryReplayResult {
  return {
    asset_id: args.assetId,
    start: args.start,
    end: args.end,
    currency: 'EUR',
    days: r.dayCount,
    months: r.months.map((m) => ({ month: m.month, hours: m.hours, cost_without: cents(m.costWithout) })),
    cost_without: cents(r.costWithout),
    sizes: r.batteries.map((b) => ({
      capacity_kwh: b.battery.capacityKwh,
      power_kw: b.battery.powerKw,
      efficiency: b.battery.roundTripEfficiency,
      months: b.months.map((m) => ({
        month: m.month,
        cost_with: cents(m.costWith),
        savings: cents(m.savings),
        cycles: Math.round(m.cycles * 10) / 10,
      })),
      cost_with: cents(b.costWith),
      savings: cents(b.savings),
      savings_per_year: cents(b.savingsPerYear),
      cycles: Math.round(b.cycles * 10) / 10,
    })),
    missing_hours: r.missingHours,
    unforecast_hours: r.unforecastHours,
    unpriced_hours: r.unpricedHours,
    warnings: warningsOf(r),
  };
}

/**
 * Runs a resolved replay: re-checks the rights, then replays the sizes day by day, calling
 * `onDay` after each, and answers the report. The job runs it, and the command line.
 */
export async function runReplay(
  db: Knex,
  pool: WorkerPool,
  args: BatteryReplayJobArgs,
  onDay: (done: number, total: number) => Promise<void> | void,
): Promise<BatteryReplayResult> {
  const asset = await getAsset(db, args.assetId);
  if (!asset) throw new JobFailure('LookupError', `Asset ${args.assetId} is gone; nothing was replayed.`);
  await assertMayRead(db, args, asset.account_id);
  const sensor = async (id: number) => (await getSensor(db, id)) ?? Promise.reject(new JobFailure('LookupError', `Sensor ${id} is gone.`));
  const load = await sensor(args.loadSensorId);
  const pv = args.pvSensorId === null ? null : await sensor(args.pvSensorId);
  const t = args.tariff;
  const prices = t.kind === 'day-ahead' ? dayAheadPrices(db, await sensor(t.sensorId), t.feedInPrice) : timeOfUsePrices(t);
  const result = await replayBatteries(db, pool, {
    load,
    pv,
    batteries: args.sizes,
    prices,
    fromMs: args.fromMs,
    toMs: args.toMs,
    ...(await replayPlace(db, asset)),
    onDay,
  });
  return presentReplay(args, result);
}

/**
 * The handler of the `battery-replay` queue: runs the replay, recording progress and giving its
 * turn to another account's waiting job after each day, and stores the report as the job's result.
 */
export function batteryReplayHandler(db: Knex, pool: WorkerPool): JobHandler<FlexsiteJobs, 'battery-replay'> {
  return async ({ args }, runtime) =>
    runReplay(db, pool, args, async (done, total) => {
      await runtime.progress(done, total);
      await runtime.yieldTurn();
    });
}
