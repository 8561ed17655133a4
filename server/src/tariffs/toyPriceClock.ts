import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import { recordToyPrices } from '../commands/toyPrices.ts';
import { Periodic } from '../periodic.ts';

/** Hourly: a new day's prices are written within the hour after midnight in the market's zone. */
const TICK_MS = 3600_000;
const TOY_ZONE = 'Europe/Amsterdam';

/**
 * The public day-ahead price sensor of the toy account, when the toy account exists.
 * @returns its id, or undefined.
 */
export async function toyPriceSensorId(db: Knex): Promise<number | undefined> {
  if (!(await db('account').where({ name: 'Toy Account' }).first('id'))) return undefined;
  const row = await db('sensor as s')
    .join('generic_asset as a', 'a.id', 's.generic_asset_id')
    .where({ 'a.name': 'NL transmission zone', 's.name': 'day-ahead prices' })
    .whereNull('a.account_id')
    .first<{ id: number } | undefined>('s.id');
  return row?.id;
}

/**
 * Keeps the toy account's prices ahead of the clock: `toy-account` writes today and the coming
 * days once, and without this a toy account made last week had no prices for today and could
 * not schedule. Does nothing where there is no toy account.
 */
export class ToyPriceClock extends Periodic {
  constructor(
    private db: Knex,
    log: Logger,
    clock: Clock,
  ) {
    super(TICK_MS, (err) => log.error({ err }, 'toy prices'), clock);
  }

  /**
   * Writes the toy prices of the day of `nowMs` and the coming days.
   * @returns how many days were written (0 without a toy account).
   */
  protected async work(nowMs: number): Promise<number> {
    const sensorId = await toyPriceSensorId(this.db);
    if (sensorId === undefined) return 0;
    // The server's own clock keeps them for the operator, who asked for the toy account.
    const write = { sensorId, zone: TOY_ZONE, nowMs };
    const { startMs, endMs } = await this.db.transaction((trx) => recordToyPrices({ db: trx }, { kind: 'operator' }, write));
    return Math.round((endMs - startMs) / 86_400_000);
  }
}
