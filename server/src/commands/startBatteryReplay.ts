import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { MAX_REPLAY_DAYS, type BatteryReplayRequest } from '../contracts/batteryReplay.ts';
import type { BatteryReplayJobArgs, ReplayTariffArgs } from '../contracts/jobs.ts';
import { conversion } from '../domain/units.ts';
import { fieldError } from '../errors.ts';
import type { JobRecord } from '../jobs/jobQueue.ts';
import { auditActor, principalRef, type Principal } from '../policies/principal.ts';
import { authorizeReferences, type Reference } from '../policies/references.ts';
import { replaySensors } from '../queries/replaySite.ts';
import type { Asset } from '../store/assets.ts';
import { getSensor } from '../store/sensors.ts';
import { listTariffs } from '../store/tariffs.ts';
import { recordAudit } from '../store/write/auditLog.ts';
import type { CommandContext, Writes } from './context.ts';

/**
 * Starting a battery replay ("would a battery pay?") of a site: resolves what it will read (the
 * site's load and PV sensors, its tariff or the named price sensor, authorized for the principal
 * and the site's account), bounds the period, queues the job in the principal's name and records
 * the audit entry, both in the route's transaction. No HTTP context: errors are the API's (422
 * with field messages, 403).
 */

/** What resolving a replay reads: the store, and the clock for "now" (the period ends by tomorrow). */
type Resolving = Pick<CommandContext, 'reader' | 'clock'>;
/** What starting one uses besides: the queue, and the route's transaction for the job's record and its audit entry. */
type Replaying = Writes<'reader' | 'clock' | 'jobs'>;
/** What both take: the site and the replay asked of it. */
interface ReplayInput {
  asset: Asset;
  request: BatteryReplayRequest;
}

/** The price a tariff is entered in, and the one the replay counts in. */
const ENTERED = 'EUR/kWh';
const COUNTED = 'EUR/MWh';

/** The local midnights of the period's dates in the site's zone, checked: valid, in order, at most a year, in the past. */
function periodOf(request: BatteryReplayRequest, zone: string, nowMs: number) {
  const day = (field: 'start' | 'end') => {
    const [year, month, d] = request[field].split('-').map(Number);
    const at = DateTime.fromObject({ year, month, day: d }, { zone });
    if (!at.isValid) throw fieldError('json', field, 'Not a date.');
    return at;
  };
  const [start, end] = [day('start'), day('end')];
  const days = Math.round(end.diff(start, 'days').days);
  if (days < 1) throw fieldError('json', 'end', 'Must be after start.');
  if (days > MAX_REPLAY_DAYS) throw fieldError('json', 'end', `The period may span at most ${MAX_REPLAY_DAYS} days.`);
  const today = DateTime.fromMillis(nowMs, { zone }).startOf('day');
  if (end > today.plus({ days: 1 }))
    throw fieldError('json', 'end', "The replay covers measured history: end may be tomorrow's date at the latest.");
  return { fromMs: start.toMillis(), toMs: end.toMillis() };
}

/** The site's own tariff (its first) in EUR/MWh, converted from the unit it was entered in. */
async function siteTariff(db: Knex, asset: Asset): Promise<ReplayTariffArgs> {
  const [tariff] = await listTariffs(db, { assetId: asset.id });
  if (!tariff) throw fieldError('json', 'tariff.kind', 'The site has no tariff: enter one on the site, or give a time-of-use tariff here.');
  const d = tariff.definition;
  const unit = d.unit ?? (await getSensor(db, d.consumption_price_sensor))?.unit ?? '';
  const c = conversion(unit, COUNTED, 0);
  if (!c) throw fieldError('json', 'tariff.kind', `The site's tariff is in ${unit || 'no unit'}, not a price per energy in EUR.`);
  const eur = (v: number) => v * c.scale + c.offset;
  return {
    kind: 'time-of-use',
    buying: { timezone: d.timezone, price: eur(d.price), periods: d.periods.map((p) => ({ ...p, price: eur(p.price) })) },
    feedInPrice: eur(d.feed_in_price ?? 0),
  };
}

/** The tariff asked for, in EUR/MWh; a price sensor is authorized for reading by the principal and the site's account. */
async function tariffOf(
  context: Pick<CommandContext, 'reader'>,
  principal: Principal,
  asset: Asset,
  zone: string,
  request: BatteryReplayRequest,
) {
  const t = request.tariff;
  const toCounted = (v: number) => v * (conversion(ENTERED, COUNTED, 0)?.scale ?? 1000);
  if (t.kind === 'site') return siteTariff(context.reader, asset);
  if (t.kind === 'time-of-use') {
    const buying = { timezone: zone, price: toCounted(t.price), periods: t.periods.map((p) => ({ ...p, price: toCounted(p.price) })) };
    return { kind: 'time-of-use' as const, buying, feedInPrice: toCounted(t.feed_in_price) };
  }
  const ref: Reference = { kind: 'sensor', id: t.sensor, use: 'read', location: 'json', field: 'tariff.sensor' };
  const { sensors } = await authorizeReferences(context.reader, principal, [ref], [], asset.account_id);
  const sensor = sensors.get(t.sensor)!;
  if (!sensor.event_resolution_ms || !conversion(sensor.unit, COUNTED, sensor.event_resolution_ms)) {
    throw fieldError(
      'json',
      'tariff.sensor',
      `Sensor ${sensor.id} records ${sensor.unit || 'no unit'}, not prices per energy in EUR over time.`,
    );
  }
  return {
    kind: 'day-ahead' as const,
    sensorId: sensor.id,
    feedInPrice: t.feed_in_price === undefined ? null : toCounted(t.feed_in_price),
  };
}

/**
 * What a battery replay of the site will do (the caller has authorized reading the site): its
 * load and PV sensors, its sizes, its prices and its period, checked and resolved. The API queues
 * them as a job; the command line runs them at once.
 * @throws 422 for a site without load measurements, a period out of bounds or a tariff that is
 *   missing or not in EUR; 403 for a price sensor the principal or the site's account may not read.
 */
export async function resolveBatteryReplay(context: Resolving, principal: Principal, input: ReplayInput): Promise<BatteryReplayJobArgs> {
  const { asset, request } = input;
  const measured = await replaySensors(context.reader, asset.id);
  if (!measured) throw fieldError('path', 'id', `Asset ${asset.id} has no house load or grid meter with measured power to replay.`);
  const zone = measured.load.timezone;
  return {
    assetId: asset.id,
    principal: principalRef(principal),
    loadSensorId: measured.load.id,
    pvSensorId: measured.pv?.id ?? null,
    sizes: request.sizes.map((s) => ({ capacityKwh: s.capacity_kwh, powerKw: s.power_kw, roundTripEfficiency: s.efficiency })),
    tariff: await tariffOf(context, principal, asset, zone, request),
    ...periodOf(request, zone, context.clock.now()),
    start: request.start,
    end: request.end,
  };
}

/**
 * Queues a battery replay of the site (the route has authorized reading it) and records its audit entry.
 * @returns the job.
 * @throws as `resolveBatteryReplay`; nothing is queued then.
 */
export async function startBatteryReplay(context: Replaying, principal: Principal, input: ReplayInput): Promise<JobRecord> {
  const { asset, request } = input;
  const args = await resolveBatteryReplay(context, principal, input);
  // Measurements may be added to the period at any time: each start replays afresh. The job's
  // record is stored in the route's transaction, with the audit entry; the queue takes it up once committed.
  const job = await context.jobs.enqueue('battery-replay', args, {
    accountId: asset.account_id,
    sensorId: null,
    reuseWithinS: 0,
    force: true,
    trx: context.db,
  });
  const sizes = request.sizes.map((s) => `${s.capacity_kwh} kWh / ${s.power_kw} kW`).join(', ');
  const event = `Started battery replay ${job.id} of asset '${asset.name}': ${asset.id}, ${request.start} to ${request.end}, ${sizes}, tariff ${request.tariff.kind}`;
  await recordAudit(context.db, auditActor(principal), { assetId: asset.id, accountId: asset.account_id }, event);
  return job;
}
