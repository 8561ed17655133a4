import type { Api } from './api.ts';
import { householdKw, type Household } from './household.ts';

/**
 * The simulated site as an operator sets it up over the API: a house in Konstanz with its meter
 * (load) and solar panels, a home battery and an EV charger made by device set-up, a
 * time-of-use tariff written to price sensors, and automations that forecast and schedule.
 */

export const ZONE = 'Europe/Berlin';
export const STEP_MS = 900_000;
const DAY_MS = 86_400_000;
/** The meter history imported before the first day: what the forecasts learn from. */
export const HISTORY_DAYS = 56;

/** The time-of-use tariff (EUR/MWh), as the operator enters it and as the simulation prices energy. */
export const TARIFF = {
  name: 'Time of use',
  timezone: ZONE,
  price: 300,
  periods: [
    { days: 'all', from: '23:00', to: '07:00', price: 200 },
    { days: 'weekdays', from: '17:00', to: '21:00', price: 420 },
  ],
  feed_in_price: 80,
} as const;

export const BATTERY = { power: '5 kW', capacity: '10 kWh', soc_min: '10%', charging_efficiency: '95%', discharging_efficiency: '95%' };
export const EV = { power: '7.4 kW', capacity: '40 kWh', charging_efficiency: '90%' };
export const EV_TARGET = { days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '07:00', value: '80%' };

/** When the plans are made: the minute field of their automations' cron (the hours stay as configured per device). */
export type CronMinute = '*/15' | '*' | '55';

export interface SiteIds {
  accountId: number;
  site: number;
  load: number;
  pv: number;
  buyPrice: number;
  sellPrice: number;
  battery: { asset: number; power: number; soc: number };
  ev: { asset: number; power: number; soc: number };
  automations: number[];
}

async function sensor(api: Api, assetId: number, name: string, unit: string, resolution: string, attributes = {}): Promise<number> {
  const res = await api.must('POST', '/api/v3_0/sensors', {
    json: { name, unit, event_resolution: resolution, generic_asset_id: assetId, timezone: ZONE, attributes: JSON.stringify(attributes) },
  });
  return res.body.id as number;
}

async function device(api: Api, site: number, body: Record<string, unknown>): Promise<{ asset: number; power: number; soc: number }> {
  const res = await api.must('POST', `/api/v3_0/assets/${site}/devices`, { json: { timezone: ZONE, ...body } });
  return { asset: res.body.asset.id, power: res.body.sensors[0].id, soc: res.body.sensors[1]?.id };
}

/** The first account and its administrator, made from this machine as on a fresh appliance. */
async function firstAccount(api: Api): Promise<number> {
  const res = await api.must('POST', '/api/v3_0/setup', {
    json: { account_name: 'Home', email: 'operator@example.com', username: 'operator', password: 'simulated-site', timezone: ZONE },
  });
  api.token = res.body.auth_token;
  return res.body.account.id as number;
}

/** The meter history of the house before `startMs`, as an import of the meter's readings. */
async function importHistory(api: Api, ids: SiteIds, series: Household, startMs: number): Promise<void> {
  const from = startMs - HISTORY_DAYS * DAY_MS;
  const steps = (HISTORY_DAYS * DAY_MS) / STEP_MS;
  const at = (i: number) => householdKw(series, from + i * STEP_MS);
  const post = (sensorId: number, values: number[]) =>
    api.must('POST', `/api/v3_0/sensors/${sensorId}/data`, {
      json: { values, start: new Date(from).toISOString(), duration: `PT${HISTORY_DAYS * 24}H`, unit: 'kW' },
    });
  await post(
    ids.load,
    Array.from({ length: steps }, (_, i) => at(i).loadKw),
  );
  await post(
    ids.pv,
    Array.from({ length: steps }, (_, i) => at(i).pvKw),
  );
}

/**
 * Sets the site up at the simulated `startMs`.
 * @param cronMinute when the automations run within the hour.
 */
export async function setUpSite(api: Api, series: Household, startMs: number, cronMinute: CronMinute): Promise<SiteIds> {
  const accountId = await firstAccount(api);
  const types = (await api.must('GET', '/api/v3_0/assets/types')).body as { id: number; name: string }[];
  const building = types.find((t) => t.name === 'building')!.id;
  const site = (
    await api.must('POST', '/api/v3_0/assets', {
      json: { name: 'Home', generic_asset_type_id: building, account_id: accountId, latitude: 47.66, longitude: 9.18 },
    })
  ).body.id as number;
  const load = await sensor(api, site, 'load', 'kW', 'PT15M', { consumption_is_positive: true });
  const buyPrice = await sensor(api, site, 'consumption price', 'EUR/MWh', 'PT1H');
  const sellPrice = await sensor(api, site, 'feed-in price', 'EUR/MWh', 'PT1H');
  const pv = (await device(api, site, { kind: 'pv', name: 'Roof PV', power: '9 kW' })).power;
  const battery = await device(api, site, { kind: 'battery', name: 'Home battery', ...BATTERY });
  const ev = await device(api, site, { kind: 'ev-charger', name: 'Car', ...EV, soc_targets: [EV_TARGET] });
  const context = {
    'consumption-price': { sensor: buyPrice },
    'production-price': { sensor: sellPrice },
    'inflexible-device-sensors': [load, pv],
  };
  await api.must('PATCH', `/api/v3_0/assets/${site}`, { json: { flex_context: JSON.stringify(context) } });
  await api.must('POST', `/api/v3_0/assets/${site}/tariffs`, {
    json: { ...TARIFF, consumption_price_sensor: buyPrice, production_price_sensor: sellPrice },
  });
  const ids: SiteIds = { accountId, site, load, pv, buyPrice, sellPrice, battery, ev, automations: [] };
  await importHistory(api, ids, series, startMs);
  const automation = async (body: Record<string, unknown>) =>
    (await api.must('POST', `/api/v3_0/assets/${site}/automations`, { json: { timezone: ZONE, horizon: 'P1D', ...body } })).body
      .id as number;
  // Forecasts hourly, for two days ahead; the plans, as often as the variant says, read the newest.
  ids.automations.push(
    await automation({ name: 'forecasts', cron: '0 * * * *', horizon: 'P2D', forecast_sensor_ids: [load, pv] }),
    await automation({ name: 'battery plan', cron: `${cronMinute} * * * *`, forecast_sensor_ids: [], schedule_sensor_id: battery.power }),
    // The car is home in the evening and at night: its plans are made then.
    await automation({ name: 'car plan', cron: `${cronMinute} 0-7,18-23 * * *`, forecast_sensor_ids: [], schedule_sensor_id: ev.power }),
  );
  return ids;
}
