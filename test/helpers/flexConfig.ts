import knex, { type Knex } from 'knex';
import { DateTime } from 'luxon';
import { afterAll, expect } from 'vitest';
import { AppError } from '../../server/src/errors.ts';
import { errorAnswer } from '../../server/src/http/errorAnswer.ts';
import type { Asset } from '../../server/src/store/assets.ts';
import { RowReads } from '../../server/src/store/rowReads.ts';
import type { SensorInContext } from '../../server/src/store/sensors.ts';
import type { Horizon } from '../../server/src/scheduling/flexConfig/horizon.ts';
import type { Resolving } from '../../server/src/scheduling/flexConfig/quantities.ts';

/**
 * A store without tables: resolving fixed values and time segments never reads the store, and a
 * read by mistake fails the test with "no such table" instead of passing unseen.
 */
let emptyStore: Knex | undefined;
function store(): Knex {
  if (!emptyStore) {
    emptyStore = knex({ client: 'sqlite3', connection: { filename: ':memory:' }, useNullAsDefault: true });
    afterAll(() => emptyStore?.destroy());
  }
  return emptyStore;
}

export const HOUR_MS = 3_600_000;
export const QUARTER_MS = 15 * 60_000;

/** An instant written out, keeping its offset. */
export const at = (iso: string) => DateTime.fromISO(iso, { setZone: true });

/**
 * Where fields are resolved: a schedule from `start` of `hours` hours in steps of `stepMs`, whose
 * longest possible end is two days after the start.
 */
export function resolving(start: string, hours: number, stepMs = QUARTER_MS): Resolving & { start: DateTime } {
  const startDt = at(start);
  const startMs = startDt.toMillis();
  const horizon: Horizon = { startMs, endMs: startMs + hours * HOUR_MS, stepMs, maxEndMs: startMs + 48 * HOUR_MS };
  return { rows: new RowReads(store()), horizon, start: startDt };
}

/** A power sensor as the store answers it, on a battery unless told otherwise. */
export function sensor(fields: Partial<SensorInContext> = {}): SensorInContext {
  return {
    id: 1,
    name: 'power',
    unit: 'MW',
    timezone: 'Europe/Amsterdam',
    event_resolution_ms: QUARTER_MS,
    attributes: {},
    generic_asset_id: 1,
    account_id: 1,
    consultancy_account_id: null,
    asset_type: 'battery',
    ...fields,
  };
}

export function asset(attributes: Record<string, unknown> = {}): Asset {
  return {
    id: 1,
    name: 'site',
    latitude: null,
    longitude: null,
    generic_asset_type_id: 1,
    account_id: 1,
    parent_asset_id: null,
    attributes,
    flex_context: {},
    flex_model: {},
  };
}

/** The field messages (or the text) of the 422 a resolution step throws, as the API answers them under `json`. */
export async function refusal(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const answer = errorAnswer(err as AppError);
    expect(answer.status).toBe(422);
    return (answer.body.message as { json: unknown }).json;
  }
  throw new Error('expected a 422, but the value was accepted');
}
