import type { Knex } from 'knex';
import { household, KONSTANZ } from './_realSeries.ts';
import { factories } from '../test/helpers/factories.ts';

/**
 * The real household (bench/_realSeries.ts) as a site in a store: a site with a house load and
 * solar panels below it, each with an hourly kW sensor holding the measured series. What the
 * replay bench and its test on the real series both start from.
 */
export async function storeHousehold(db: Knex) {
  const f = factories(db);
  const account = await f.account();
  const site = await f.asset({ accountId: account.id, type: 'site', name: 'Konstanz household' });
  const { load, pv } = household();
  const device = async (type: string, name: string, attributes: Record<string, unknown>) => {
    const asset = await f.asset({ accountId: account.id, type, name, parentId: site.id });
    return f.sensor({ assetId: asset.id, unit: 'kW', resolutionMinutes: 60, timezone: KONSTANZ.timezone, name, attributes });
  };
  const loadSensor = await device('house load', 'house load', { consumption_is_positive: true });
  const pvSensor = await device('solar', 'solar panels', {});
  // Measurements as recorded: each believed by the end of the series' first hour; the replay's bound is the event's start.
  await f.beliefs(loadSensor.id, load.startMs, load.stepMs, Array.from(load.values), load.startMs + load.stepMs);
  await f.beliefs(pvSensor.id, pv.startMs, pv.stepMs, Array.from(pv.values), pv.startMs + pv.stepMs);
  return { account, site, loadSensor, pvSensor, load, pv };
}
