import type { Knex } from 'knex';
import type { z } from 'zod';
import { newPassword, type userPatch } from '../contracts/resources.ts';
import { randomPassword } from '../../../worker/src/tasks.ts';
import { conflict, fieldError, forbidden, unprocessable } from '../errors.ts';
import { authorize, type AccessContext } from '../policies/access.ts';
import { auditActor, type Principal } from '../policies/principal.ts';
import { mayChangeStanding, mayGrantRole, removesActiveAdmin } from '../policies/roles.ts';
import { getAccount } from '../store/accounts.ts';
import { recordAudit } from '../store/write/auditLog.ts';
import { revokeTokens } from '../store/write/tokens.ts';
import * as users from '../store/users.ts';
import * as write from '../store/write/users.ts';
import type { Uses, Writes } from './context.ts';

/**
 * Creating and changing users, the one way every caller does it (the v3.0 endpoints, API 2.0's,
 * which run them, and the CLI): the principal's rights on the account or user, the roles they may
 * grant, unique e-mails and usernames, and an active administrator kept. No HTTP context: errors
 * are the API's (422 field messages, 403, the reference's 400 for a taken identity, 409).
 */

/** A new user; without a password one is made up (and answered once), so that nobody signs in until it is set. */
export interface NewUser {
  email: string;
  username: string;
  password?: string;
  accountId: number;
  roleIds: number[];
  timezone?: string;
  active?: boolean;
}

export type UserChanges = z.output<typeof userPatch>;

/** The access context of a user: an account-admin may change only users whose every role they could grant. */
const userAccess = (u: users.User): AccessContext => ({ kind: 'user', id: u.id, accountId: u.account_id, roles: u.roles });

/** Role ids must exist, and only admins may hand out the platform-wide roles. */
async function checkRoles(db: Knex, principal: Principal, roleIds: number[], current: number[]): Promise<void> {
  const roles = await users.listRoles(db);
  const unknown = roleIds.filter((r) => !roles.some((role) => role.id === r));
  if (unknown.length) throw unprocessable('json', { flexmeasures_roles: [`Unknown role id(s): ${unknown.join(', ')}.`] });
  const handedOut = roles.filter((r) => roleIds.includes(r.id) && !current.includes(r.id));
  if (handedOut.some((r) => !mayGrantRole(principal, r.name))) throw forbidden();
}

/** Emails and usernames are unique; a clash is the reference's 400. */
async function checkIdentityFree(db: Knex, props: { email?: string; username?: string; except?: number }): Promise<void> {
  const taken = await users.takenIdentity(db, props);
  if (!taken) return;
  throw conflict('Duplicate user already exists', {
    status: 400,
    detail: taken === 'email' ? `email ${props.email} is taken` : `username ${props.username} is taken`,
  });
}

/**
 * The appliance must keep an administrator who can sign in: the last active one may not be
 * deactivated, lose the admin role or have their password reset (a random one nobody knows).
 * @param change what would happen to the target.
 */
async function keepLastAdmin(db: Knex, target: users.User, change: { active?: boolean; roleIds?: number[]; reset?: boolean }) {
  const roles = await users.listRoles(db);
  const roleNames = change.roleIds?.map((id) => roles.find((r) => r.id === id)?.name ?? '');
  if (removesActiveAdmin(target, { ...change, roleNames }) && (await users.countActiveAdmins(db, target.id)) === 0) {
    throw conflict(`${target.username} is the last active administrator: make another user an active admin first.`);
  }
}

/**
 * Creates a user in an account, where the principal may add users (admins anywhere, account-admins
 * in their own account).
 * @returns the user, and the password made up when none was given (null otherwise).
 */
export async function createUser(
  context: Uses<'hash'>,
  principal: Principal,
  input: NewUser,
): Promise<{ user: users.User; password: string | null }> {
  const { db } = context;
  const account = await getAccount(db, input.accountId);
  if (!account) throw fieldError('json', 'account_id', `Account with Id ${input.accountId} doesn't exist.`);
  authorize(principal, 'create-children', { kind: 'account', id: account.id, consultancyAccountId: account.consultancy_account_id });
  await checkRoles(db, principal, input.roleIds, []);
  await checkIdentityFree(db, { email: input.email, username: input.username });
  const madeUp = input.password === undefined ? randomPassword() : null;
  // Hashed before the transaction, which would otherwise hold the store for the hashing time.
  const passwordHash = await context.hash(input.password ?? madeUp!);
  const { password: _password, ...props } = input;
  const user = await db.transaction((trx) =>
    write.createUser(trx, auditActor(principal), { ...props, passwordHash, passwordChosen: madeUp === null }),
  );
  return { user, password: madeUp };
}

/**
 * Changes a user's fields, roles and standing (deactivating signs them out everywhere). Nobody
 * changes their own roles or standing, and the last active administrator stays one.
 * @returns the user as stored afterwards.
 */
export async function updateUser(
  context: Writes,
  principal: Principal,
  input: { target: users.User; changes: UserChanges },
): Promise<users.User> {
  const { db } = context;
  const { target, changes } = input;
  authorize(principal, 'update', userAccess(target));
  if (!mayChangeStanding(principal, target) && (changes.active !== undefined || changes.flexmeasures_roles !== undefined))
    throw forbidden();
  if (changes.flexmeasures_roles) await checkRoles(db, principal, changes.flexmeasures_roles, target.roleIds);
  await keepLastAdmin(db, target, { active: changes.active, roleIds: changes.flexmeasures_roles });
  await checkIdentityFree(db, { email: changes.email, username: changes.username, except: target.id });
  const { email, username, active, timezone } = changes;
  await write.updateUser(db, auditActor(principal), target, { email, username, active, timezone, roleIds: changes.flexmeasures_roles });
  if (active === false) await revokeTokens(db, target.id);
  return (await users.getUser(db, target.id))!;
}

/**
 * Replaces a user's password with a random one nobody knows and signs them out everywhere; the
 * last active administrator keeps theirs. The caller tells the user (the API mails them).
 */
export async function resetPassword(context: Uses<'hash'>, principal: Principal, input: { target: users.User }): Promise<void> {
  const { db } = context;
  const { target } = input;
  authorize(principal, 'update', userAccess(target));
  await keepLastAdmin(db, target, { reset: true });
  // Hashed outside the transaction, which would otherwise hold the store for the hashing time.
  const passwordHash = await context.hash(randomPassword());
  await db.transaction(async (trx) => {
    await write.setPasswordHash(trx, auditActor(principal), target, { passwordHash, how: 'reset' });
    await revokeTokens(trx, target.id);
  });
}

/**
 * Sets a password the user chose: the user themselves (the caller checked their current password
 * or their set-password link) or the operator at the CLI. Others' passwords are reset, never
 * chosen for them.
 * @param input.signOut whether the user's sessions end: a link's holder or the operator need not be whoever held them.
 * @param input.throughLink set through a set-password link, which the audit log says (who asked for it is recorded with the link).
 */
export async function setPassword(
  context: Uses<'hash'>,
  principal: Principal,
  input: { target: users.User; password: string; signOut: boolean; throughLink?: boolean },
): Promise<void> {
  const { db } = context;
  const { target } = input;
  if (principal.kind !== 'operator' && !(principal.kind === 'user' && principal.user.id === target.id)) throw forbidden();
  if (!newPassword.safeParse(input.password).success) {
    throw fieldError('json', 'password', 'The password must be at least 8 characters long (and at most 200).');
  }
  // Hashed outside the transaction, which would otherwise hold the store for the hashing time.
  const passwordHash = await context.hash(input.password);
  await db.transaction(async (trx) => {
    await write.setPasswordHash(trx, auditActor(principal), target, { passwordHash, how: 'set', throughLink: input.throughLink });
    if (input.signOut) await revokeTokens(trx, target.id);
  });
}

/**
 * Allows a set-password link for another user (an invitation), recording who asked for it: only
 * for a user without a password of their own (made without one, or reset, which signed them out
 * and told them), since whoever holds the link sets the password and signs in as them.
 * @throws 403 for oneself (who changes their password instead) or a user the principal may not
 *   change; 409 for a user who has chosen a password.
 */
export async function allowPasswordLink(context: Uses, principal: Principal, input: { target: users.User }): Promise<void> {
  const { db } = context;
  const { target } = input;
  authorize(principal, 'update', userAccess(target));
  if (principal.kind === 'user' && principal.user.id === target.id) throw forbidden();
  if (await users.passwordChosen(db, target.id)) {
    throw conflict(
      `${target.username} has a password of their own: a set-password link would let whoever holds it sign in as them. ` +
        'Reset the password first (which signs them out and tells them), or let them use "forgot password".',
    );
  }
  await db.transaction((trx) =>
    recordAudit(
      trx,
      auditActor(principal),
      { userId: target.id, accountId: target.account_id },
      `Set-password link made for user ${target.username}`,
    ),
  );
}

/** Deletes a user (whoever may delete them: the operator at the CLI, where nothing else deletes users). */
export async function deleteUser(context: Writes, principal: Principal, input: { target: users.User }): Promise<void> {
  const { target } = input;
  authorize(principal, 'delete', userAccess(target));
  await write.deleteUser(context.db, auditActor(principal), target);
}
