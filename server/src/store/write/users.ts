import type { Knex } from 'knex';
import type { Writer } from '../auditLog.ts';
import { getUser, listRoles, type User } from '../users.ts';
import { recordAudit } from './auditLog.ts';
import { defined } from '../defined.ts';
import { userChangeEvent } from '../auditEvents.ts';
import { authChanged } from '../authCache.ts';

/** Replaces the user's roles. */
async function setRoles(trx: Knex.Transaction, userId: number, roleIds: number[]): Promise<void> {
  await authChanged(trx);
  await trx('user_role').where({ user_id: userId }).delete();
  if (roleIds.length) await trx('user_role').insert(roleIds.map((role_id) => ({ user_id: userId, role_id })));
}

/** Writes plain columns of a user. */
async function writeUser(trx: Knex.Transaction, id: number, row: Record<string, unknown>): Promise<void> {
  if (!Object.keys(row).length) return;
  // The login time is not what authentication depends on; every login would spoil every cached user.
  if (Object.keys(row).some((k) => k !== 'last_login_at')) await authChanged(trx);
  await trx('user').where({ id }).update(row);
}

/**
 * Creates a user and records it.
 * @returns the new user.
 */
export async function createUser(
  trx: Knex.Transaction,
  by: Writer,
  props: {
    email: string;
    username: string;
    passwordHash: string;
    accountId: number;
    roleIds: number[];
    timezone?: string;
    active?: boolean;
    /** False when the password was made up for the user (see `passwordChosen`). */
    passwordChosen?: boolean;
  },
): Promise<User> {
  const [{ id }] = await trx('user')
    .insert({
      email: props.email,
      username: props.username,
      password_hash: props.passwordHash,
      account_id: props.accountId,
      timezone: props.timezone ?? 'Europe/Amsterdam',
      active: props.active ?? true,
      password_chosen: props.passwordChosen ?? true,
    })
    .returning<{ id: number }[]>('id');
  await setRoles(trx, id, props.roleIds);
  await recordAudit(trx, by, { userId: id, accountId: props.accountId }, `User ${props.username} created`);
  return (await getUser(trx, id))!;
}

/**
 * Updates a user's fields, roles and standing, recording the changes of roles and standing as 1.0
 * does (other fields are not recorded).
 */
export async function updateUser(
  trx: Knex.Transaction,
  by: Writer,
  before: User,
  changes: Partial<{ email: string; username: string; active: boolean; timezone: string; roleIds: number[] }>,
): Promise<void> {
  const { roleIds, ...fields } = changes;
  await writeUser(trx, before.id, defined(fields));
  if (roleIds) await setRoles(trx, before.id, roleIds);
  const roleNames = new Map((await listRoles(trx)).map((r) => [r.id, r.name]));
  const newRoles = roleIds ?? before.roleIds;
  const event = userChangeEvent({
    removedRoles: before.roleIds.filter((r) => !newRoles.includes(r)).map((r) => roleNames.get(r)!),
    addedRoles: newRoles.filter((r) => !before.roleIds.includes(r)).map((r) => roleNames.get(r)!),
    active: changes.active,
  });
  const affected = { userId: before.id, accountId: before.account_id };
  if (event) await recordAudit(trx, by, affected, event);
  // Whoever changes the address changes where set-password links are mailed.
  if (fields.email !== undefined && fields.email !== before.email) {
    await recordAudit(trx, by, affected, `Updated: email, From: ${before.email}, To: ${fields.email}`);
  }
}

/**
 * Stores a user's new password hash, recording whether it was reset (to one nobody knows, so not
 * chosen) or set (chosen by the user, perhaps through a set-password link).
 */
export async function setPasswordHash(
  trx: Knex.Transaction,
  by: Writer,
  user: User,
  change: { passwordHash: string; how: 'reset' | 'set'; throughLink?: boolean },
): Promise<void> {
  await writeUser(trx, user.id, { password_hash: change.passwordHash, password_chosen: change.how === 'set' });
  const event = `Password ${change.how} for user ${user.username}${change.throughLink ? ' through a set-password link' : ''}`;
  await recordAudit(trx, by, { userId: user.id, accountId: user.account_id }, event);
}

/** Records the time of a login, which changes nothing a user or admin set (1.0 keeps no entry of it). */
export async function recordLogin(trx: Knex.Transaction, id: number, atMs: number): Promise<void> {
  await writeUser(trx, id, { last_login_at: atMs });
}

/** Deletes a user (tokens and roles cascade), recording it on their account's log. */
export async function deleteUser(trx: Knex.Transaction, by: Writer, user: User): Promise<boolean> {
  await authChanged(trx);
  const deleted = (await trx('user').where({ id: user.id }).delete()) > 0;
  if (deleted) await recordAudit(trx, by, { accountId: user.account_id }, `User ${user.username} deleted`);
  return deleted;
}
