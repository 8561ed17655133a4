import { forbidden } from '../errors.ts';
import { auditActor, type Principal } from '../policies/principal.ts';
import { createAccount } from '../store/write/accounts.ts';
import { createAsset, ensureAssetType } from '../store/write/assets.ts';
import { getSensor } from '../store/sensors.ts';
import { createSensor, updateSensor } from '../store/write/sensors.ts';
import { listRoles } from '../store/users.ts';
import { createUser } from '../store/write/users.ts';
import type { Uses } from './context.ts';
import { recordToyPrices } from './toyPrices.ts';

export interface ToyAccountIds {
  account_id: number;
  user_id: number;
  battery_asset_id: number;
  battery_power_sensor_id: number;
  transmission_zone_asset_id: number;
  day_ahead_prices_sensor_id: number;
}

/**
 * Creates the toy account of the tutorials: an account with one user, a battery with a power
 * sensor, and a public transmission zone with a day-ahead price sensor holding toy prices for today
 * and the coming days, so that the battery can be scheduled at once. Existing parts are reused;
 * the prices are refreshed on every run. The operator's, at the command line.
 * @param input.password the toy user's password.
 * @returns every id involved.
 */
export async function createToyAccount(context: Uses<'hash'>, principal: Principal, input: { password: string }): Promise<ToyAccountIds> {
  if (principal.kind !== 'operator') throw forbidden();
  const by = auditActor(principal);
  const passwordHash = await context.hash(input.password);
  return context.db.transaction(async (trx) => {
    const account =
      (await trx('account').where({ name: 'Toy Account' }).first<{ id: number }>('id')) ??
      (await createAccount(trx, by, { name: 'Toy Account', roles: ['Prosumer'], consultancyAccountId: null }));
    const email = 'toy-user@flexmeasures.io';
    const accountAdmin = (await listRoles(trx)).find((r) => r.name === 'account-admin')!;
    const user =
      (await trx('user').where({ email }).first<{ id: number }>('id')) ??
      (await createUser(trx, by, { email, username: 'toy-user', passwordHash, accountId: account.id, roleIds: [accountAdmin.id] }));

    const batteryType = await ensureAssetType(trx, 'battery', 'stationary battery');
    const battery =
      (await trx('generic_asset').where({ name: 'toy-battery', account_id: account.id }).first<{ id: number }>('id')) ??
      (await createAsset(trx, by, {
        name: 'toy-battery',
        generic_asset_type_id: batteryType.id,
        account_id: account.id,
        parent_asset_id: null,
        latitude: 52.374,
        longitude: 4.88969,
        attributes: { capacity_in_mw: 0.5, min_soc_in_mwh: 0.05, max_soc_in_mwh: 0.45 },
      }));
    const power =
      (await trx('sensor').where({ generic_asset_id: battery.id, name: 'power' }).first<{ id: number }>('id')) ??
      (await createSensor(trx, by, {
        name: 'power',
        unit: 'MW',
        event_resolution_ms: 15 * 60_000,
        timezone: 'Europe/Amsterdam',
        generic_asset_id: battery.id,
        attributes: { capacity_in_mw: 0.5 },
      }));

    const zoneType = await ensureAssetType(trx, 'transmission zone', 'A grid regulated & balanced as a whole, usually a national grid.');
    const zone =
      (await trx('generic_asset').where({ name: 'NL transmission zone' }).whereNull('account_id').first<{ id: number }>('id')) ??
      (await createAsset(trx, by, {
        name: 'NL transmission zone',
        generic_asset_type_id: zoneType.id,
        account_id: null,
        parent_asset_id: null,
        latitude: 52.132633,
        longitude: 5.291266,
        attributes: {},
      }));
    const prices =
      (await trx('sensor').where({ generic_asset_id: zone.id, name: 'day-ahead prices' }).first<{ id: number }>('id')) ??
      (await createSensor(trx, by, {
        name: 'day-ahead prices',
        unit: 'EUR/MWh',
        event_resolution_ms: 3600_000,
        timezone: 'Europe/Amsterdam',
        generic_asset_id: zone.id,
        attributes: {},
      }));
    // The battery is priced by the public day-ahead market unless a flex-context says otherwise.
    await updateSensor(trx, by, (await getSensor(trx, power.id))!, { attributes: { capacity_in_mw: 0.5, market_id: prices.id } });
    await recordToyPrices({ db: trx }, principal, { sensorId: prices.id, zone: 'Europe/Amsterdam' });
    return {
      account_id: account.id,
      user_id: user.id,
      battery_asset_id: battery.id,
      battery_power_sensor_id: power.id,
      transmission_zone_asset_id: zone.id,
      day_ahead_prices_sensor_id: prices.id,
    };
  });
}
