import type { Knex } from 'knex';
import { fieldError, forbidden, unprocessable } from '../errors.ts';
import { auditActor, rightsOf, type Principal } from '../policies/principal.ts';
import { isAdmin, mayChooseConsultancy, maySetAccountRoles } from '../policies/roles.ts';
import * as accounts from '../store/accounts.ts';
import * as write from '../store/write/accounts.ts';
import { issueToken } from '../store/write/tokens.ts';
import { anyUser, listRoles, type User } from '../store/users.ts';
import { createUser } from '../store/write/users.ts';
import type { Asset } from '../store/assets.ts';
import type { Writer } from '../store/auditLog.ts';
import { createAsset as createAssetRow, ensureAssetType } from '../store/write/assets.ts';
import type { Uses, Writes } from './context.ts';

/**
 * FlexMeasures 1.0's account writes (POST and PATCH /accounts, the CLI's `add account`): field
 * rules, then the change, whose store write records its audit log entry in the caller's transaction.
 */

/** A name no other account has (1.0's 422 otherwise). */
async function checkNameFree(trx: Knex.Transaction, name: string, exceptId?: number): Promise<void> {
  const clash = await accounts.accountByName(trx, name);
  if (clash && clash.id !== exceptId) throw fieldError('json', 'name', `An account with name '${name}' already exists.`);
}

/** The consultancy an account is given: allowed to the caller (403), and an existing account (422). */
async function checkConsultancy(trx: Knex.Transaction, principal: Principal, consultancyId: number | null): Promise<void> {
  // The operator at the CLI may give any account any consultancy, as an admin may.
  const user = rightsOf(principal);
  if (user) {
    const [callerRoles] = (await accounts.accountRoles(trx, [user.account_id])).values();
    const roleNames = callerRoles.map((r) => r.name);
    if (!mayChooseConsultancy(user, roleNames, consultancyId)) throw forbidden();
  }
  if (consultancyId !== null && !(await accounts.getAccount(trx, consultancyId))) {
    throw fieldError('json', 'consultancy_account_id', `No account found with id ${consultancyId}.`);
  }
}

/**
 * Creates an account (the route lets platform admins only), with the named account roles (created
 * when new: only the operator names them).
 */
export async function createAccount(
  context: Writes,
  principal: Principal,
  input: { name: string; consultancy_account_id?: number | null; roles?: string[] },
): Promise<accounts.Account> {
  const trx = context.db;
  await checkNameFree(trx, input.name);
  const consultancyId = input.consultancy_account_id ?? null;
  await checkConsultancy(trx, principal, consultancyId);
  if (input.roles?.length && principal.kind !== 'operator') throw forbidden();
  return write.createAccount(trx, auditActor(principal), {
    name: input.name,
    roles: input.roles ?? [],
    consultancyAccountId: consultancyId,
  });
}

/** Changes the fields given; the entry names the fields that changed, as 1.0's does. */
export async function patchAccount(
  context: Writes,
  principal: Principal,
  input: { account: accounts.Account; changes: { name?: string; consultancy_account_id?: number | null; account_roles?: number[] } },
): Promise<accounts.Account> {
  const trx = context.db;
  const { account, changes } = input;
  if (changes.name !== undefined) await checkNameFree(trx, changes.name, account.id);
  if (changes.consultancy_account_id !== undefined) await checkConsultancy(trx, principal, changes.consultancy_account_id);
  let roleIds: number[] | undefined;
  if (changes.account_roles !== undefined) {
    roleIds = [...new Set(changes.account_roles)];
    if (!maySetAccountRoles(principal)) throw forbidden();
    const known = new Set((await accounts.listAccountRoles(trx)).map((r) => r.id));
    const unknown = roleIds.filter((id) => !known.has(id));
    if (unknown.length) throw unprocessable('json', { account_roles: [`Invalid account role ID(s): [${unknown.join(', ')}].`] });
  }
  const { name, consultancy_account_id } = changes;
  await write.updateAccount(trx, auditActor(principal), account, { name, consultancy_account_id, roleIds });
  return (await accounts.getAccount(trx, account.id))!;
}

/** Deletes an account with its users, assets, sensors and data (platform admins and the operator). */
export async function deleteAccount(context: Writes, principal: Principal, input: { account: accounts.Account }): Promise<void> {
  if (!isAdmin(principal)) throw forbidden();
  await write.deleteAccount(context.db, auditActor(principal), input.account);
}

async function firstSite(trx: Knex.Transaction, by: Writer, { name, accountId }: { name: string; accountId: number }): Promise<Asset> {
  const type = await ensureAssetType(trx, 'site', 'a site: a grid connection and the devices behind it');
  return createAssetRow(trx, by, {
    name,
    account_id: accountId,
    parent_asset_id: null,
    generic_asset_type_id: type.id,
    latitude: null,
    longitude: null,
    attributes: {},
  });
}

/**
 * The appliance's first account and its administrator, made by whoever sits at the machine (the
 * route answers only there: the operator), and only while no user exists: checked inside the
 * transaction, so that two simultaneous set-ups cannot both succeed.
 * @returns the account, the administrator and a token for them; undefined once a user exists.
 */
export async function setUpFirstAccount(
  context: Uses<'hash' | 'config'>,
  principal: Principal,
  input: { account_name: string; email: string; username: string; password: string; timezone?: string; site_name?: string },
): Promise<{ account: accounts.Account; user: User; token: string; site?: Asset } | undefined> {
  if (principal.kind !== 'operator') throw forbidden();
  // Hashed before the transaction, which would otherwise hold the store for the hashing time.
  const passwordHash = await context.hash(input.password);
  return context.db.transaction(async (trx) => {
    if (await anyUser(trx)) return undefined;
    const by = auditActor(principal);
    const account = await write.createAccount(trx, by, { name: input.account_name, roles: [], consultancyAccountId: null });
    const admin = (await listRoles(trx)).find((r) => r.name === 'admin')!;
    const { email, username, timezone } = input;
    const user = await createUser(trx, by, { email, username, passwordHash, accountId: account.id, roleIds: [admin.id], timezone });
    // The site the devices will be added under, of the type that says so.
    const site = input.site_name ? await firstSite(trx, by, { name: input.site_name, accountId: account.id }) : undefined;
    return { account, user, token: await issueToken(trx, user.id, context.config.tokenMaxAgeS), ...(site && { site }) };
  });
}
