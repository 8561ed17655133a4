import type { Knex } from 'knex';
import { z } from 'zod';
import { fieldError, notFound, type Location } from '../errors.ts';
import { intText } from '../contracts/fields.ts';
import type { Loaded } from '../http/routes.ts';
import type { AccessContext, Permission } from '../policies/access.ts';
import { assetAccess, sensorAccess } from '../policies/references.ts';
import { getAccount, type Account } from '../store/accounts.ts';
import { getAsset, type Asset } from '../store/assets.ts';
import { getSensor, type SensorInContext } from '../store/sensors.ts';
import { getUser, type User } from '../store/users.ts';

/**
 * The loaders of the route chain's load step: each finds one thing a request names, answers the
 * reference's 404 or 422 when it does not exist, and says which permission the caller needs on it
 * (the chain then authorizes it through policies/).
 */

/** The `:id` path part as a number; anything but an integer is a 422 under `path`. */
export const idParams = z.object({ id: intText });

/** The access context of an account. */
export const accountAccess = (a: Account): AccessContext => ({
  kind: 'account',
  id: a.id,
  consultancyAccountId: a.consultancy_account_id,
});

/** An asset, 404 when unknown (or the error `missing` makes, for an id named in a body). */
export async function assetById(
  db: Knex,
  id: number,
  permission: Permission,
  missing = () => notFound(`GenericAsset ${id} not found`),
): Promise<Loaded<Asset>> {
  const asset = await getAsset(db, id);
  if (!asset) throw missing();
  return { value: asset, permission, on: await assetAccess(db, asset.account_id) };
}

/** The sensor an earlier step found, with its permission. */
export const sensorNeeds = (sensor: SensorInContext, permission: Permission): Loaded<SensorInContext> => ({
  value: sensor,
  permission,
  on: sensorAccess(sensor),
});

/** A sensor; unknown sensors are a 422 under the field that named it, as the reference answers. */
export async function sensorById(
  db: Knex,
  id: number,
  permission: Permission,
  where: { location: Location; field: string } = { location: 'path', field: 'id' },
): Promise<Loaded<SensorInContext>> {
  const sensor = await getSensor(db, id);
  if (!sensor) throw fieldError(where.location, where.field, `No sensor found with id ${id}.`);
  return sensorNeeds(sensor, permission);
}

/** A user, 404 when unknown. */
export async function userById(db: Knex, id: number, permission: Permission): Promise<Loaded<User>> {
  const user = await getUser(db, id);
  if (!user) throw notFound(`User ${id} not found`);
  return { value: user, permission, on: { kind: 'user', id: user.id, accountId: user.account_id, roles: user.roles } };
}

/** An account, 404 when unknown. */
export async function accountById(db: Knex, id: number, permission: Permission): Promise<Loaded<Account>> {
  const account = await getAccount(db, id);
  if (!account) throw notFound(`Account ${id} not found`);
  return { value: account, permission, on: accountAccess(account) };
}

/** The account a listing is about: the one asked for, else the caller's own; read permission. */
export const listedAccount = (db: Knex, caller: User, accountId: number | undefined) =>
  accountById(db, accountId ?? caller.account_id, 'read');
