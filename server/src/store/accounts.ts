import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.ts';

export interface Account {
  id: number;
  name: string;
  consultancy_account_id: number | null;
}

export interface AccountRole {
  id: number;
  name: string;
}

/** @returns the account, or undefined. */
export async function getAccount(db: Knex, id: number): Promise<Account | undefined> {
  // Read by every request that checks an owner: a kept statement (see `Dialect.query`).
  const [row] = await dialectOf(db).query<Account>(db, 'SELECT * FROM account WHERE id = ?', [id]);
  return row;
}

/** @returns the account of that name, or undefined. */
export async function accountByName(db: Knex, name: string): Promise<Account | undefined> {
  return db<Account>('account').where({ name }).first();
}

/** @returns every account role, by id. */
export async function listAccountRoles(db: Knex): Promise<AccountRole[]> {
  return db<AccountRole>('account_role').select('id', 'name').orderBy('id');
}

/** @returns every account, by id. */
export async function listAccounts(db: Knex): Promise<Account[]> {
  return db<Account>('account').orderBy('id');
}

/** @returns the accounts that have `consultancyId` as their consultancy. */
export async function listClientAccounts(db: Knex, consultancyId: number): Promise<Account[]> {
  return db<Account>('account').where({ consultancy_account_id: consultancyId }).orderBy('id');
}

/** @returns the account roles of each account id given. */
export async function accountRoles(db: Knex, accountIds: number[]): Promise<Map<number, AccountRole[]>> {
  const rows = await db('account_account_role as aar')
    .join('account_role as r', 'r.id', 'aar.account_role_id')
    .whereIn('aar.account_id', accountIds)
    .orderBy('r.id')
    .select<{ account_id: number; id: number; name: string }[]>('aar.account_id', 'r.id', 'r.name');
  const byAccount = new Map<number, AccountRole[]>(accountIds.map((a) => [a, []]));
  for (const r of rows) byAccount.get(r.account_id)?.push({ id: r.id, name: r.name });
  return byAccount;
}

/** @returns whether an account role of that name exists. */
export async function accountRoleExists(db: Knex, name: string): Promise<boolean> {
  return (await db('account_role').where({ name }).first('id')) !== undefined;
}

/** @returns how many users and assets each account id given holds. */
export async function accountHoldings(db: Knex, accountIds: number[]): Promise<Map<number, { users: number; assets: number }>> {
  const count = (table: string) =>
    db(table)
      .whereIn('account_id', accountIds)
      .groupBy('account_id')
      .select<{ account_id: number; n: number | string }[]>('account_id', db.raw('count(*) as n'));
  const [users, assets] = await Promise.all([count('user'), count('generic_asset')]);
  const held = new Map(accountIds.map((id) => [id, { users: 0, assets: 0 }]));
  for (const r of users) held.get(r.account_id)!.users = Number(r.n);
  for (const r of assets) held.get(r.account_id)!.assets = Number(r.n);
  return held;
}
