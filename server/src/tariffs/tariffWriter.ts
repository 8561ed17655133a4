import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import type { Logger } from 'pino';
import { tariffPriceAt } from '../domain/tariff.ts';
import { firstRefused, type Reference } from '../policies/references.ts';
import { recordBeliefs, type BeliefInput } from '../store/beliefs.ts';
import { getSensor } from '../store/sensors.ts';
import { getOrCreateSource } from '../store/sources.ts';
import { listTariffs, type Tariff } from '../store/tariffs.ts';
import { getUser } from '../store/users.ts';

/** How far ahead prices are written: the rest of today and the next two days, in the tariff's zone. */
const AHEAD_DAYS = 3;
const TICK_MS = 3600_000;

/** The sensors a tariff writes to, as references its owner must still be allowed to write. */
function tariffReferences(t: Tariff): Reference[] {
  const d = t.definition;
  const refs: Reference[] = [
    { kind: 'sensor', id: d.consumption_price_sensor, use: 'write', location: 'json', field: 'consumption_price_sensor' },
  ];
  if (d.production_price_sensor !== undefined) {
    refs.push({ kind: 'sensor', id: d.production_price_sensor, use: 'write', location: 'json', field: 'production_price_sensor' });
  }
  return refs;
}

/**
 * Writes every tariff's prices ahead as beliefs of a `reporter` source ("Flexsite tariff"), so
 * that schedules read them like any price sensor. Runs at start and hourly; prices already
 * believed are left out as unchanged, so a tick stores only what is new or what a changed tariff
 * changes. A tariff writes with its owner's current rights, or not at all.
 */
export class TariffWriter {
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<number> | undefined;

  constructor(
    private db: Knex,
    private log: Logger,
  ) {}

  /**
   * Writes the prices of the intervals from `nowMs` to the end of the second day after it,
   * believed at `nowMs`.
   * @returns how many beliefs were stored.
   */
  async tick(nowMs: number): Promise<number> {
    await this.ticking;
    this.ticking = (async () => {
      let stored = 0;
      for (const t of await listTariffs(this.db)) {
        stored += await this.write(t, nowMs).catch((err: unknown) => {
          this.log.warn({ err: String(err), tariff: t.id }, 'tariff not written');
          return 0;
        });
      }
      return stored;
    })();
    return this.ticking;
  }

  private async write(t: Tariff, nowMs: number): Promise<number> {
    const owner = t.ownerId === null ? undefined : await getUser(this.db, t.ownerId);
    if (!owner?.active) throw new Error(`the owner of tariff ${t.id} is no longer active`);
    const refused = await firstRefused(this.db, owner, tariffReferences(t));
    if (refused) throw new Error(`the owner of tariff ${t.id} may no longer write sensor ${refused.id}`);
    const d = t.definition;
    const from = DateTime.fromMillis(nowMs, { zone: d.timezone }).startOf('day');
    const [fromMs, toMs] = [from.toMillis(), from.plus({ days: AHEAD_DAYS }).toMillis()];
    const rows: Omit<BeliefInput, 'sourceId'>[] = [];
    const series: [number, (startMs: number) => number][] = [[d.consumption_price_sensor, (s) => tariffPriceAt(d, s)]];
    if (d.production_price_sensor !== undefined) series.push([d.production_price_sensor, () => d.feed_in_price!]);
    for (const [sensorId, priceAt] of series) {
      const sensor = (await getSensor(this.db, sensorId))!;
      // An instantaneous sensor gets one price per hour.
      const stepMs = sensor.event_resolution_ms || 3600_000;
      // Only prices of intervals still to end: a price believed after its interval would be a measurement.
      for (let s = fromMs; s < toMs; s += stepMs) {
        if (s + stepMs > nowMs) rows.push({ sensorId, eventStartMs: s, beliefTimeMs: nowMs, value: priceAt(s) });
      }
    }
    return this.db.transaction(async (trx) => {
      const source = await getOrCreateSource(trx, { name: 'Flexsite tariff', type: 'reporter', model: `tariff ${t.id}` });
      const result = await recordBeliefs(
        trx,
        rows.map((r) => ({ ...r, sourceId: source.id })),
        { allowOverwrite: false },
      );
      return result.inserted;
    });
  }

  start(): void {
    void this.tick(Date.now());
    this.timer = setInterval(() => void this.tick(Date.now()), TICK_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.ticking;
  }
}
