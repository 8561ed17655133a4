import type { Account, AccountRole } from '../store/accounts.ts';
import type { Asset } from '../store/assets.ts';
import type { RecordResult } from '../store/beliefs.ts';
import type { Sensor } from '../store/sensors.ts';
import type { User } from '../store/users.ts';
import { formatResolution } from '../domain/time.ts';

const isEmpty = (o: Record<string, unknown>) => Object.keys(o).length === 0;

/**
 * Asset as the API shows it; JSON fields travel as JSON text. The 1.0 dialect always shows the
 * stored flex configuration and `sensors_to_show`; the 0.18 one shows the flex configuration only
 * once some is stored (which only a 1.0-style request can do), so 0.18 clients see 0.18 bodies.
 */
export const presentAsset = (a: Asset, dialect: '0.18' | '1.0' = '0.18') => ({
  id: a.id,
  name: a.name,
  latitude: a.latitude,
  longitude: a.longitude,
  generic_asset_type_id: a.generic_asset_type_id,
  account_id: a.account_id,
  parent_asset_id: a.parent_asset_id,
  attributes: JSON.stringify(a.attributes),
  ...(dialect === '1.0' || !isEmpty(a.flex_context) || !isEmpty(a.flex_model)
    ? { flex_context: JSON.stringify(a.flex_context), flex_model: JSON.stringify(a.flex_model) }
    : {}),
  ...(dialect === '1.0'
    ? {
        sensors_to_show: JSON.stringify(a.attributes.sensors_to_show ?? []),
        sensors_to_show_as_kpis: JSON.stringify(a.attributes.sensors_to_show_as_kpis ?? []),
      }
    : {}),
  // Only a 1.0-style request sets these: 0.18 answers show them once set.
  ...(dialect === '1.0' || a.description != null ? { description: a.description ?? null } : {}),
  ...(dialect === '1.0' || a.external_id != null ? { external_id: a.external_id ?? null } : {}),
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

/** Whether an upload answers "already received": something was left out as unchanged, or nothing was new. */
export const alreadyReceived = (r: RecordResult) => r.unchanged > 0 || r.inserted + r.replaced === 0;
