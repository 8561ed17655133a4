import type { Account, AccountRole } from '../store/accounts.ts';
import type { Asset } from '../store/assets.ts';
import type { Sensor } from '../store/sensors.ts';
import type { User } from '../store/users.ts';
import { formatResolution } from '../domain/time.ts';

/** Asset as the API shows it; `attributes` travels as JSON text. */
export const presentAsset = (a: Asset) => ({
  id: a.id,
  name: a.name,
  latitude: a.latitude,
  longitude: a.longitude,
  generic_asset_type_id: a.generic_asset_type_id,
  account_id: a.account_id,
  parent_asset_id: a.parent_asset_id,
  attributes: JSON.stringify(a.attributes),
});

/** Sensor as the API shows it; the entity address depends on the host the client used. */
export const presentSensor = (s: Sensor, entityAddress: string) => ({
  id: s.id,
  name: s.name,
  unit: s.unit,
  timezone: s.timezone,
  event_resolution: formatResolution(s.event_resolution_ms),
  entity_address: entityAddress,
  attributes: JSON.stringify(s.attributes),
  generic_asset_id: s.generic_asset_id,
});

// Naive UTC, as the reference prints these two timestamps.
const naiveUtc = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 19));

/** User as the API shows it; roles are role ids under the name existing clients read. */
export const presentUser = (u: User) => ({
  id: u.id,
  email: u.email,
  username: u.username,
  account_id: u.account_id,
  active: u.active,
  timezone: u.timezone,
  flexmeasures_roles: u.roleIds,
  last_login_at: naiveUtc(u.last_login_at),
  last_seen_at: naiveUtc(u.last_seen_at),
});

/** Account with its account roles. */
export const presentAccount = (a: Account, roles: AccountRole[]) => ({
  id: a.id,
  name: a.name,
  consultancy_account_id: a.consultancy_account_id,
  account_roles: roles,
});
