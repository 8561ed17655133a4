import type { Knex } from 'knex';
import { fieldError, forbidden, unprocessable } from '../errors.ts';
import { mayChooseConsultancy, maySetAccountRoles } from '../policies/roles.ts';
import * as accounts from '../store/accounts.ts';
import { actorOf, recordAudit } from '../store/auditLog.ts';
import type { User } from '../store/users.ts';

/**
 * FlexMeasures 1.0's account writes (POST and PATCH /accounts): field rules, then the change and
 * its audit log entry in the caller's transaction.
 */

/** A name no other account has (1.0's 422 otherwise). */
async function checkNameFree(trx: Knex.Transaction, name: string, exceptId?: number): Promise<void> {
  const clash = await accounts.accountByName(trx, name);
  if (clash && clash.id !== exceptId) throw fieldError('json', 'name', `An account with name '${name}' already exists.`);
}

/** The consultancy an account is given: allowed to the caller (403), and an existing account (422). */
async function checkConsultancy(trx: Knex.Transaction, principal: User, consultancyId: number | null): Promise<void> {
  const [callerRoles] = (await accounts.accountRoles(trx, [principal.account_id])).values();
  if (
    !mayChooseConsultancy(
      principal,
      callerRoles.map((r) => r.name),
      consultancyId,
    )
  )
    throw forbidden();
  if (consultancyId !== null && !(await accounts.getAccount(trx, consultancyId))) {
    throw fieldError('json', 'consultancy_account_id', `No account found with id ${consultancyId}.`);
  }
}

/** Creates an account (the route lets platform admins only). */
export async function createAccount(
  trx: Knex.Transaction,
  principal: User,
  input: { name: string; consultancy_account_id?: number | null },
): Promise<accounts.Account> {
  await checkNameFree(trx, input.name);
  const consultancyId = input.consultancy_account_id ?? null;
  await checkConsultancy(trx, principal, consultancyId);
  const account = await accounts.createAccount(trx, { name: input.name, roles: [], consultancyAccountId: consultancyId });
  await recordAudit(trx, actorOf(principal), { accountId: account.id }, `Account '${account.name}' created`);
  return account;
}

/** Changes the fields given; the entry names the fields that changed, as 1.0's does. */
export async function patchAccount(
  trx: Knex.Transaction,
  principal: User,
  input: { account: accounts.Account; changes: { name?: string; consultancy_account_id?: number | null; account_roles?: number[] } },
): Promise<accounts.Account> {
  const { account, changes } = input;
  if (changes.name !== undefined) await checkNameFree(trx, changes.name, account.id);
  if (changes.consultancy_account_id !== undefined) await checkConsultancy(trx, principal, changes.consultancy_account_id);
  let rolesChanged = false;
  if (changes.account_roles !== undefined) {
    const wanted = [...new Set(changes.account_roles)];
    if (!maySetAccountRoles(principal)) throw forbidden();
    const known = new Set((await accounts.listAccountRoles(trx)).map((r) => r.id));
    const unknown = wanted.filter((id) => !known.has(id));
    if (unknown.length) throw unprocessable('json', { account_roles: [`Invalid account role ID(s): [${unknown.join(', ')}].`] });
    const [current] = (await accounts.accountRoles(trx, [account.id])).values();
    rolesChanged = current.length !== wanted.length || !current.every((r) => wanted.includes(r.id));
    await accounts.setAccountRoles(trx, account.id, wanted);
  }
  // In 1.0's order of fields.
  const changed = [
    changes.name !== undefined && changes.name !== account.name && 'name',
    changes.consultancy_account_id !== undefined &&
      changes.consultancy_account_id !== account.consultancy_account_id &&
      'consultancy_account_id',
    rolesChanged && 'account_roles',
  ].filter((f) => f !== false);
  await accounts.updateAccount(trx, account.id, { name: changes.name, consultancy_account_id: changes.consultancy_account_id });
  // 1.0 writes the entry on every patch, naming no field when nothing changed.
  await recordAudit(
    trx,
    actorOf(principal),
    { userId: principal.id, accountId: account.id },
    `Account Updated, Field: ${changed.join(', ')}`,
  );
  return (await accounts.getAccount(trx, account.id))!;
}
