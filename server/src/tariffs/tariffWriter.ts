import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { resampleToGrid } from '../domain/resample.ts';
import { connectorReferences, storePrices, tariffReferences, writeTariffPrices, type PriceRow } from '../commands/tariffs.ts';
import { conversion } from '../domain/units.ts';
import { firstRefused, type Reference } from '../policies/references.ts';
import { getSensor } from '../store/sensors.ts';
import type { SourceProps } from '../store/sources.ts';
import { listPriceConnectors, listTariffs, type PriceConnector, type Tariff } from '../store/tariffs.ts';
import { getAsset } from '../store/assets.ts';
import { getUser } from '../store/users.ts';
import { Periodic } from '../periodic.ts';
import { fetchDayAhead, type DayAheadPrices } from './entsoe.ts';

const TICK_MS = 3600_000;

/**
 * Writes prices ahead, so that schedules read them like any price sensor: every tariff's as
 * beliefs of a `reporter` source "Flexsite tariff", and, when the operator set an ENTSO-E token,
 * every day-ahead connector's as beliefs of a `reporter` source "ENTSO-E". Runs at start and
 * hourly; prices already believed are left out as unchanged, so a tick stores only what is new
 * or changed. Each writes with its owner's current rights, or not at all; one that cannot be
 * written (offline, refused) is logged and the others go on.
 */
export class TariffWriter extends Periodic {
  constructor(
    private db: Knex,
    private config: Config,
    private log: Logger,
    clock: Clock,
  ) {
    super(TICK_MS, (err) => log.error({ err }, 'tariff writer'), clock);
  }

  /**
   * Writes the prices of the intervals from `nowMs` through the planning horizon (at least to
   * the end of the second day after it), believed at `nowMs`: keeps them ahead of the clock.
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
    // the number of connectors following it: they all spend the operator's one token.
    const token = this.config.entsoe.token;
    const fromMs = DateTime.fromMillis(nowMs, { zone: 'UTC' }).startOf('day').toMillis();
    const zones = new Map<string, Promise<DayAheadPrices>>();
    const dayOf = (zone: string) => {
      if (!zones.has(zone))
        zones.set(zone, fetchDayAhead({ url: this.config.entsoe.url, token: token! }, zone, fromMs, fromMs + 2 * 86_400_000));
      return zones.get(zone)!;
    };
    for (const c of token ? await listPriceConnectors(this.db) : []) {
      stored += await this.writeDayAhead(c, dayOf, nowMs).catch((err: unknown) => {
        this.log.warn({ err: String(err), connector: c.id, zone: c.biddingZone }, 'day-ahead prices not written');
        return 0;
      });
    }
    return stored;
  }

  /** Throws unless the owner is active and they and the asset's account may still write these sensors. */
  private async ownerMayWrite(ownerId: number | null, assetId: number, refs: Reference[]): Promise<void> {
    const owner = ownerId === null ? undefined : await getUser(this.db, ownerId);
    if (!owner?.active) throw new Error('the owner is no longer active');
    const asset = await getAsset(this.db, assetId);
    if (!asset) throw new Error(`asset ${assetId} no longer exists`);
    const refused = await firstRefused(this.db, owner, refs, undefined, asset.account_id);
    if (refused) throw new Error(`the owner may no longer write sensor ${refused.id}`);
  }

  private store(source: SourceProps, rows: PriceRow[]): Promise<number> {
    return this.db.transaction((trx) => storePrices(trx, source, rows));
  }

  private async writeTariff(t: Tariff, nowMs: number): Promise<number> {
    await this.ownerMayWrite(t.ownerId, t.assetId, tariffReferences(t.definition));
    return this.db.transaction((trx) => writeTariffPrices(trx, t, { nowMs, horizonMs: this.config.planningHorizonMs }, 'ahead'));
  }

  /**
   * Today's and tomorrow's (UTC) day-ahead prices of the connector's zone, on its sensor's grid and in its unit.
   * @param dayOf the zone's prices of this tick (fetched by the first connector that asks).
   */
  private async writeDayAhead(c: PriceConnector, dayOf: (zone: string) => Promise<DayAheadPrices>, nowMs: number): Promise<number> {
    await this.ownerMayWrite(c.ownerId, c.assetId, connectorReferences(c.sensorId));
    const sensor = (await getSensor(this.db, c.sensorId))!;
    const day = await dayOf(c.biddingZone);
    if (!day.prices.length) return 0;
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
    const rows: PriceRow[] = values.flatMap((v, j) => {
      const s = startMs + j * stepMs;
      return v === null || s + stepMs <= nowMs
        ? []
        : [{ sensorId: sensor.id, eventStartMs: s, beliefTimeMs: nowMs, value: v * c2.scale + c2.offset }];
    });
    return this.store({ name: 'ENTSO-E', type: 'reporter', model: 'day-ahead' }, rows);
  }
}
