import { z } from 'zod';
import { fieldError, notFound } from '../../errors.ts';
import { intText } from '../../contracts/fields.ts';
import { parseInput } from '../../http/validate.ts';
import type { AppContext } from '../../http/context.ts';
import { authorize, type AccessContext } from '../../policies/access.ts';
import { ownerAccess } from '../../policies/references.ts';
import { getAccount, listAccounts, listClientAccounts, type Account } from '../../store/accounts.ts';
import { getAsset, type Asset } from '../../store/assets.ts';
import { getSensor, type SensorInContext } from '../../store/sensors.ts';
import { getUser, type User } from '../../store/users.ts';

/** The `:id` path part as a number; anything but an integer is a 422 under `path`. */
export const idParams = z.object({ id: intText });

export function pathId(ctx: AppContext, key = 'id'): number {
  return parseInput(z.object({ [key]: intText }), ctx.params, 'path')[key] as number;
}

/** Loads the asset of the path, 404 when unknown. */
export async function loadAsset(ctx: AppContext, assetId = pathId(ctx)): Promise<Asset> {
  const asset = await getAsset(ctx.services.db, assetId);
  if (!asset) throw notFound(`GenericAsset ${assetId} not found`);
  return asset;
}

/** Loads a sensor; unknown sensors are a 422 under the given field, as the reference answers. */
export async function loadSensor(
  ctx: AppContext,
  sensorId = pathId(ctx),
  where: { location: 'path' | 'json' | 'query'; field: string } = { location: 'path', field: 'id' },
): Promise<SensorInContext> {
  const sensor = await getSensor(ctx.services.db, sensorId);
  if (!sensor) throw fieldError(where.location, where.field, `No sensor found with id ${sensorId}.`);
  return sensor;
}

/** Loads the user of the path, 404 when unknown. */
export async function loadUser(ctx: AppContext, userId = pathId(ctx)): Promise<User> {
  const user = await getUser(ctx.services.db, userId);
  if (!user) throw notFound(`User ${userId} not found`);
  return user;
}

/** Loads an account, 404 when unknown. */
export async function loadAccount(ctx: AppContext, accountId: number): Promise<Account> {
  const account = await getAccount(ctx.services.db, accountId);
  if (!account) throw notFound(`Account ${accountId} not found`);
  return account;
}

/**
 * The account a listing is about: the one asked for, else the caller's own; 404 when unknown,
 * 403 when the caller may not read it.
 */
export async function readableAccount(ctx: AppContext, accountId: number | undefined): Promise<Account> {
  const user = ctx.state.user!;
  const account = await loadAccount(ctx, accountId ?? user.account_id);
  authorize(user, 'read', accountAccess(account));
  return account;
}

/** The accounts the caller may read: all for admins and admin-readers, else their own and their consultancy clients'. */
export async function readableAccounts(ctx: AppContext): Promise<Account[]> {
  const me = ctx.state.user!;
  const { db } = ctx.services;
  if (me.roles.includes('admin') || me.roles.includes('admin-reader')) return listAccounts(db);
  const visible = [(await getAccount(db, me.account_id))!];
  if (me.roles.includes('consultant')) visible.push(...(await listClientAccounts(db, me.account_id)));
  return visible;
}

/** The access context of an account. */
export const accountAccess = (a: Account): AccessContext => ({
  kind: 'account',
  id: a.id,
  consultancyAccountId: a.consultancy_account_id,
});

/** The access context of anything owned through an asset (the asset itself or its sensors). */
export const ownedAccess = (ctx: AppContext, kind: 'asset' | 'sensor', accountId: number | null): Promise<AccessContext> =>
  ownerAccess(ctx.services.db, kind, accountId);
