import type { Knex } from 'knex';
import { getAccount, listAccounts, listClientAccounts, type Account } from '../store/accounts.ts';
import type { User } from '../store/users.ts';
import { can } from './access.ts';
import { isConsultant, readsEverything } from './roles.ts';

/**
 * Which accounts' objects a caller sees in listings: the reference's read rule for accounts,
 * applied to whole lists instead of one object at a time.
 */

/** The accounts the caller may read: all for admins and admin-readers, else their own and their consultancy clients'. */
export async function readableAccounts(db: Knex, caller: User): Promise<Account[]> {
  if (readsEverything(caller)) return listAccounts(db);
  const visible = [(await getAccount(db, caller.account_id))!];
  if (isConsultant(caller)) visible.push(...(await listClientAccounts(db, caller.account_id)));
  return visible;
}

/** The ids of {@link readableAccounts}, or `all` for those who read everything (no list to build). */
export async function readableAccountIds(db: Knex, caller: User): Promise<'all' | number[]> {
  return readsEverything(caller) ? 'all' : (await readableAccounts(db, caller)).map((a) => a.id);
}

/**
 * The accounts a listing by account covers: the account, and with `withClients` (1.0's
 * `include_consultancy_clients`, for consultants only) its client accounts the caller may read.
 */
export async function listedAccountIds(db: Knex, caller: User, account: Account, withClients: boolean): Promise<number[]> {
  if (!withClients || !isConsultant(caller)) return [account.id];
  const clients = await listClientAccounts(db, account.id);
  const readable = clients.filter((c) =>
    can(caller, 'read', { kind: 'account', id: c.id, consultancyAccountId: c.consultancy_account_id }),
  );
  return [account.id, ...readable.map((c) => c.id)];
}
