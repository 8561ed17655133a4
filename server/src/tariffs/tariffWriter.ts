import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { resampleToGrid } from '../domain/resample.ts';
import { writeDayAheadPrices, writeTariffPrices, type PriceRow } from '../commands/tariffs.ts';
import { conversion } from '../domain/units.ts';
import type { Principal } from '../policies/principal.ts';
import { connectorReferences, mayWritePrices, priceOwner } from '../policies/tariffs.ts';
import { getSensor } from '../store/sensors.ts';
import { endSubject } from '../store/write/notifications.ts';
import { getPriceConnector, listPriceConnectors, listTariffs, type PriceConnector, type Tariff } from '../store/tariffs.ts';
import { setConnectorOutcome } from '../store/write/tariffs.ts';
import { getAsset } from '../store/assets.ts';
import { Periodic } from '../periodic.ts';
import type { Attention } from '../attention/attention.ts';
import { sensorName } from '../attention/wording.ts';
import { biddingZones } from '../contracts/tariffs.ts';
import { fetchDayAhead, type DayAheadPrices } from './entsoe.ts';

const TICK_MS = 3600_000;

/** A bidding zone's day-ahead prices, as one write asks for them. */
type DayOf = (zone: string) => Promise<DayAheadPrices>;

/** When a write's prices are believed, and the instant before which its intervals are left out. */
interface WriteAt {
  nowMs: number;
  keepFromMs: number;
}

/**
 * Writes prices ahead, so that schedules read them like any price sensor: every tariff's as
 * beliefs of a `reporter` source "Flexsite tariff", and, when the operator set an ENTSO-E token,
 * every day-ahead connector's as beliefs of a `reporter` source "ENTSO-E". Runs at start and
 * hourly; prices already believed are left out as unchanged, so a tick stores only what is new
 * or changed. Each writes with its owner's current rights, or not at all; one that cannot be
 * written (offline, refused) is logged and the others go on. A connector also records how its
 * last attempt ended, and its failures notify its account.
 */
export class TariffWriter extends Periodic {
  constructor(
    private db: Knex,
    private config: Config,
    private log: Logger,
    private attention: Pick<Attention, 'raise'>,
    clock: Clock,
  ) {
    super(TICK_MS, (err) => log.error({ err }, 'tariff writer'), clock);
  }

  /**
   * Writes the prices of the intervals from `nowMs` through the planning horizon (a connector's
   * through the end of the day it ends in, in its site's zone), believed at `nowMs`: keeps them
   * ahead of the clock.
   * @returns how many beliefs were stored.
   */
  protected async work(nowMs: number): Promise<number> {
    let stored = 0;
    for (const t of await listTariffs(this.db)) {
      stored += await this.writeTariff(t, nowMs).catch((err: unknown) => {
        this.log.warn({ err: String(err), tariff: t.id }, 'tariff not written');
        return 0;
      });
    }
    // Off unless the operator set a token. Each bidding zone is asked once per tick, whatever
    // the number of connectors following it: they all spend the operator's one token, so it is
    // asked for the site days of all of them.
    const connectors = this.config.entsoe.token ? await listPriceConnectors(this.db) : [];
    const windows = new Map<string, { fromMs: number; toMs: number }>();
    for (const c of connectors) {
      const days = await this.siteDays(c, nowMs);
      const known = windows.get(c.biddingZone);
      windows.set(c.biddingZone, known ? { fromMs: Math.min(known.fromMs, days.fromMs), toMs: Math.max(known.toMs, days.toMs) } : days);
    }
    const zones = new Map<string, Promise<DayAheadPrices>>();
    const dayOf = (zone: string) => {
      const { fromMs, toMs } = windows.get(zone)!;
      if (!zones.has(zone)) zones.set(zone, this.fetch(zone, fromMs, toMs));
      return zones.get(zone)!;
    };
    for (const c of connectors) stored += await this.writeConnector(c, dayOf, { nowMs, keepFromMs: nowMs });
    return stored;
  }

  /**
   * The days a connector's prices cover at `nowMs`: from the start of today in its sensor's zone
   * (the site's day, not UTC's) through the end of the day the planning horizon ends in.
   */
  private async siteDays(c: PriceConnector, nowMs: number): Promise<{ fromMs: number; toMs: number }> {
    const timezone = (await getSensor(this.db, c.sensorId))?.timezone ?? 'UTC';
    const fromMs = DateTime.fromMillis(nowMs, { zone: timezone }).startOf('day').toMillis();
    const toMs = DateTime.fromMillis(nowMs + this.config.planningHorizonMs, { zone: timezone })
      .startOf('day')
      .plus({ days: 1 })
      .toMillis();
    return { fromMs, toMs };
  }

  /**
   * Writes a connector's prices at once, believed now, from the start of today in its sensor's
   * zone through the end of the day the planning horizon ends in (as far as the platform has
   * them): a connector just stored has prices before the first tick, today's past hours
   * included. A failure is recorded on the connector and notified, as the tick does.
   * @returns the connector with how this attempt ended.
   */
  async writeConnectorNow(c: PriceConnector): Promise<PriceConnector> {
    const nowMs = this.clock.now();
    const { fromMs, toMs } = await this.siteDays(c, nowMs);
    await this.writeConnector(c, (zone) => this.fetch(zone, fromMs, toMs), { nowMs, keepFromMs: fromMs });
    return (await getPriceConnector(this.db, c.id))!;
  }

  /** The platform's prices of a zone, or why there are none to ask for. */
  private fetch(zone: string, fromMs: number, toMs: number): Promise<DayAheadPrices> {
    const { url, token } = this.config.entsoe;
    if (!token) return Promise.reject(new Error('no ENTSO-E token is set (FLEXSITE_ENTSOE_TOKEN), so no prices are fetched'));
    return fetchDayAhead({ url, token }, zone, fromMs, toMs);
  }

  /**
   * Writes a connector's prices and records the outcome on it: written, which ends a spell of
   * failures, or why not, notified once per spell (an hourly tick would otherwise notify 24
   * times a day while the platform is down).
   * @param at when the prices are believed, and from when on they are kept (see dayAheadRows).
   * @returns how many beliefs were stored.
   */
  private async writeConnector(c: PriceConnector, dayOf: DayOf, at: WriteAt): Promise<number> {
    const { nowMs } = at;
    const asset = await getAsset(this.db, c.assetId);
    const subject = `prices-failed:connector:${c.id}`;
    try {
      const owner = await priceOwner(this.db, c.ownerId);
      const rows = await this.dayAheadRows(c, owner, dayOf, at);
      const stored = await this.db.transaction(async (trx) => {
        const n = await writeDayAheadPrices({ db: trx }, owner, { connector: c, rows });
        await setConnectorOutcome(trx, c.id, { writtenAtMs: nowMs });
        return n;
      });
      if (asset?.account_id) await endSubject(this.db, asset.account_id, subject);
      return stored;
    } catch (err) {
      const error = reasonOf(err);
      this.log.warn({ err: error, connector: c.id, zone: c.biddingZone }, 'day-ahead prices not written');
      await setConnectorOutcome(this.db, c.id, { error });
      if (asset?.account_id) {
        // Named as the operator knows them: the zone by its country, the sensor by its device.
        const zone = biddingZones[c.biddingZone as keyof typeof biddingZones] ?? c.biddingZone;
        const sensor = await sensorName(this.db, c.sensorId);
        const message = `Day-ahead prices of ${zone} for ${sensor} could not be written (price connector ${c.id}): ${error}.`;
        await this.attention.raise({ accountId: asset.account_id, kind: 'prices-failed', subject, sensorId: c.sensorId, message }, nowMs);
      }
      return 0;
    }
  }

  /** Writes a tariff's prices as its owner, who must still be active. */
  private async writeTariff(t: Tariff, nowMs: number): Promise<number> {
    const owner = await priceOwner(this.db, t.ownerId);
    return this.db.transaction((trx) => writeTariffPrices({ db: trx, config: this.config }, owner, { tariff: t, nowMs }));
  }

  /**
   * The day-ahead prices of the connector's zone as beliefs at `nowMs`, on its sensor's grid and
   * in its unit, for the intervals that end after `keepFromMs`: those still to end (the tick),
   * or from the start of today on (a connector just stored).
   * @param owner whose rights the prices are written with.
   * @param dayOf the zone's prices (a tick's are fetched by the first connector that asks).
   */
  private async dayAheadRows(c: PriceConnector, owner: Principal, dayOf: DayOf, { nowMs, keepFromMs }: WriteAt): Promise<PriceRow[]> {
    // Checked before the platform is asked as well as by the write: a refused owner spends no fetch.
    await mayWritePrices(this.db, owner, c.assetId, connectorReferences(c.sensorId));
    const sensor = (await getSensor(this.db, c.sensorId))!;
    const day = await dayOf(c.biddingZone);
    if (!day.prices.length) return [];
    const c2 = conversion(`${day.currency}/MWh`, sensor.unit, sensor.event_resolution_ms || day.resolutionMs);
    if (!c2) throw new Error(`cannot convert ${day.currency}/MWh to ${sensor.unit}`);
    const stepMs = sensor.event_resolution_ms || day.resolutionMs;
    const startMs = day.prices[0].startMs;
    const endMs = day.prices[day.prices.length - 1].startMs + day.resolutionMs;
    const grid = { startMs, endMs, stepMs, eventResolutionMs: day.resolutionMs };
    const values = resampleToGrid(
      day.prices.map((p) => ({ eventStartMs: p.startMs, value: p.value })),
      grid,
    );
    return values.flatMap((v, j) => {
      const s = startMs + j * stepMs;
      return v === null || s + stepMs <= keepFromMs
        ? []
        : [{ sensorId: sensor.id, eventStartMs: s, beliefTimeMs: nowMs, value: v * c2.scale + c2.offset }];
    });
  }
}

/** Why an attempt failed, in words for the operator: a network failure's cause says more than "fetch failed". */
function reasonOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  return err.cause instanceof Error ? `${err.message} (${err.cause.message})` : err.message;
}
