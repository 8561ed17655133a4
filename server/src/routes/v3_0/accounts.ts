import type { RouteSpec } from '../../http/routes.ts';
import { authorize } from '../../policies/access.ts';
import { presentAccount, presentAsset, presentUser } from '../../presenters/index.ts';
import * as accounts from '../../store/accounts.ts';
import { listAssets } from '../../store/assets.ts';
import { listUsers } from '../../store/users.ts';
import { accountAccess, idParams, loadAccount, pathId } from './load.ts';

export const accountRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/accounts',
    summary: 'Download account list',
    async handler(ctx) {
      const me = ctx.state.user!;
      const { db } = ctx.services;
      let visible: accounts.Account[];
      if (me.roles.includes('admin') || me.roles.includes('admin-reader')) {
        visible = await accounts.listAccounts(db);
      } else {
        visible = [(await accounts.getAccount(db, me.account_id))!];
        if (me.roles.includes('consultant')) visible.push(...(await accounts.listClientAccounts(db, me.account_id)));
      }
      const roles = await accounts.accountRoles(db, visible.map((a) => a.id));
      ctx.body = visible.map((a) => presentAccount(a, roles.get(a.id) ?? []));
    },
  },
  {
    method: 'GET',
    path: '/accounts/:id',
    summary: 'Get an account',
    request: { params: idParams },
    async handler(ctx) {
      const account = await loadAccount(ctx, pathId(ctx));
      authorize(ctx.state.user!, 'read', accountAccess(account));
      const { db } = ctx.services;
      const roles = await accounts.accountRoles(db, [account.id]);
      ctx.body = {
        ...presentAccount(account, roles.get(account.id) ?? []),
        // The account overview: what the account holds.
        assets: (await listAssets(db, account.id)).map(presentAsset),
        users: (await listUsers(db, { accountId: account.id, includeInactive: true })).map(presentUser),
        status: 200,
      };
    },
  },
];
