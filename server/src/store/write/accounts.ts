import type { Knex } from 'knex';
import { type Writer } from '../auditLog.ts';
import { accountRoles, type Account } from '../accounts.ts';
import { defined } from '../defined.ts';
import { recordAudit } from './auditLog.ts';
import { authChanged } from '../authCache.ts';

/** Changes the given fields of an account. */
/**
 * Changes an account's name, consultancy and account roles (by id), recording the fields that
 * changed in one entry, as 1.0 does on every change (naming none when nothing changed).
 */
export async function updateAccount(
  trx: Knex.Transaction,
  by: Writer,
  before: Account,
  changes: Partial<Pick<Account, 'name' | 'consultancy_account_id'>> & { roleIds?: number[] },
): Promise<void> {
  const { roleIds, ...fields } = changes;
  let rolesChanged = false;
  if (roleIds !== undefined) {
    const [current] = (await accountRoles(trx, [before.id])).values();
    rolesChanged = current.length !== roleIds.length || !current.every((r) => roleIds.includes(r.id));
    await trx('account_account_role').where({ account_id: before.id }).delete();
    if (roleIds.length)
      await trx('account_account_role').insert(roleIds.map((account_role_id) => ({ account_id: before.id, account_role_id })));
  }
  const row = defined(fields);
  if (Object.keys(row).length) await trx('account').where({ id: before.id }).update(row);
  // In 1.0's order of fields.
  const changed = [
    fields.name !== undefined && fields.name !== before.name && 'name',
    fields.consultancy_account_id !== undefined &&
      fields.consultancy_account_id !== before.consultancy_account_id &&
      'consultancy_account_id',
    rolesChanged && 'account_roles',
  ].filter((f) => f !== false);
  const about = by && !('unrecorded' in by) ? { userId: by.id, accountId: before.id } : { accountId: before.id };
  await recordAudit(trx, by, about, `Account Updated, Field: ${changed.join(', ')}`);
}

/**
 * Creates an account with the named account roles (created when new).
 * @returns the new account.
 */
export async function createAccount(
  trx: Knex.Transaction,
  by: Writer,
  props: { name: string; roles: string[]; consultancyAccountId: number | null },
): Promise<Account> {
  const [row] = await trx('account')
    .insert({ name: props.name, consultancy_account_id: props.consultancyAccountId })
    .returning<Account[]>(['id', 'name', 'consultancy_account_id']);
  for (const name of props.roles) {
    await trx('account_role').insert({ name }).onConflict('name').ignore();
    const role = await trx('account_role').where({ name }).first<{ id: number }>('id');
    await trx('account_account_role').insert({ account_id: row.id, account_role_id: role.id });
  }
  await recordAudit(trx, by, { accountId: row.id }, `Account '${row.name}' created`);
  return row;
}

/**
 * Deletes an account; its users, assets, sensors and their data go with it (foreign-key cascade).
 * Its data sources go too, unless they still hold data on another account's sensors: left behind
 * without user and account, they would pass for system sources that every account may see.
 */
export async function deleteAccount(trx: Knex.Transaction, by: Writer, account: Account): Promise<boolean> {
  const { id } = account;
  const sourceIds = await trx('data_source')
    .where({ account_id: id })
    .orWhereIn('user_id', trx('user').select('id').where({ account_id: id }))
    .pluck('id');
  await authChanged(trx);
  const deleted = (await trx('account').where({ id }).delete()) > 0;
  await trx('data_source')
    .whereIn('id', sourceIds)
    .whereNotExists(trx('sensor_source').select('source_id').whereRaw('sensor_source.source_id = data_source.id'))
    .delete();
  // Kept on the log of the account's id, like a deleted asset's entries.
  if (deleted) await recordAudit(trx, by, { accountId: id }, `Account '${account.name}' deleted`);
  return deleted;
}
