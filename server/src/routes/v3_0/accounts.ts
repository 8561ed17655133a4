import { z } from 'zod';
import { createAccount, patchAccount } from '../../commands/accounts.ts';
import { accountCreate, accountPatch } from '../../contracts/resources.ts';
import { mayCreateAccounts } from '../../policies/roles.ts';
import * as wire from '../../contracts/responses.ts';
import { pageOf, pageQuery, pageSchema, sortedAsAsked } from '../../contracts/paging.ts';
import { fieldError, forbidden } from '../../errors.ts';
import { route } from '../../http/routes.ts';
import { presentAccount, presentAsset, presentUser } from '../../presenters/index.ts';
import * as accounts from '../../store/accounts.ts';
import { listAssets } from '../../store/assets.ts';
import { listUsers } from '../../store/users.ts';
import { accountById, idParams } from '../load.ts';
import { readableAccounts } from '../../policies/visibility.ts';

const accountSortKeys = ['id', 'name', 'assets', 'users'] as const;
/** FlexMeasures 1.0 (v3.0-32): an account role by name, 1.0's list parameters. */
const listQuery = pageQuery(accountSortKeys).extend({ role: z.string().max(80).optional() });

export const accountRoutes = [
  route({
    method: 'GET',
    path: '/accounts',
    summary: 'Download account list',
    request: { query: listQuery },
    async check({ db, query }) {
      if (query.role !== undefined && !(await accounts.accountRoleExists(db, query.role)))
        throw fieldError('query', 'role', `No account role found with name ${query.role}.`);
    },
    async command({ db, user, query }) {
      const visible = await readableAccounts(db, user);
      const ids = visible.map((a) => a.id);
      const [roles, held] = await Promise.all([accounts.accountRoles(db, ids), accounts.accountHoldings(db, ids)]);
      // 1.0 splits its account filter at spaces and keeps accounts with any term in their name.
      const terms =
        query.filter
          ?.split(' ')
          .filter((t) => t !== '')
          .map((t) => t.toLowerCase()) ?? [];
      const found = visible.filter(
        (a) =>
          (query.role === undefined || roles.get(a.id)!.some((r) => r.name === query.role)) &&
          (!terms.length || terms.some((t) => a.name.toLowerCase().includes(t))),
      );
      const sortKey = (a: accounts.Account, key: (typeof accountSortKeys)[number]) =>
        key === 'id' ? a.id : key === 'name' ? a.name : held.get(a.id)![key];
      const present = (a: accounts.Account) => presentAccount(a, roles.get(a.id)!);
      if (query.page === undefined) return sortedAsAsked(query, found, sortKey).map(present);
      const page = pageOf(query, visible.length, found, sortKey);
      return {
        ...page,
        data: page.data.map((a) => ({ ...present(a), user_count: held.get(a.id)!.users, asset_count: held.get(a.id)!.assets })),
      };
    },
    response: {
      schema: z.union([z.array(wire.account), pageSchema(wire.account.extend({ user_count: z.number(), asset_count: z.number() }))]),
    },
  }),
  route({
    method: 'GET',
    path: '/accounts/:id',
    summary: 'Get an account',
    request: { params: idParams },
    load: async ({ db, params }) => ({ account: await accountById(db, params.id, 'read') }),
    async command({ db, loaded: { account } }) {
      const roles = await accounts.accountRoles(db, [account.id]);
      return {
        ...presentAccount(account, roles.get(account.id) ?? []),
        // The account overview: what the account holds.
        assets: (await listAssets(db, account.id)).map((a) => presentAsset(a)),
        users: (await listUsers(db, { accountId: account.id, includeInactive: true })).map(presentUser),
        status: 200 as const,
      };
    },
    response: { schema: wire.accountOverview },
  }),
  route({
    method: 'POST',
    path: '/accounts',
    summary: 'Create an account.',
    guard: ({ user }) => {
      if (!mayCreateAccounts(user)) throw forbidden();
    },
    request: { json: accountCreate },
    transaction: true,
    command: ({ context, principal, body }) => createAccount(context, principal, body),
    response: { status: 201, schema: wire.account, present: (a) => presentAccount(a, []), description: 'the new account' },
  }),
  route({
    method: 'PATCH',
    path: '/accounts/:id',
    summary: 'Update an existing account.',
    request: { params: idParams, json: accountPatch },
    load: async ({ db, params }) => ({ account: await accountById(db, params.id, 'update') }),
    transaction: true,
    async command({ db, context, principal, body, loaded: { account } }) {
      const patched = await patchAccount(context, principal, { account, changes: body });
      const roles = await accounts.accountRoles(db, [account.id]);
      return presentAccount(patched, roles.get(account.id)!);
    },
    response: { schema: wire.account },
  }),
];
