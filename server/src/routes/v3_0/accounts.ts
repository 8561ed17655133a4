import type { RouteSpec } from '../../http/routes.ts';
import { authorize } from '../../policies/access.ts';
import { presentAccount, presentAsset, presentUser } from '../../presenters/index.ts';
import * as accounts from '../../store/accounts.ts';
import { listAssets } from '../../store/assets.ts';
import { listUsers } from '../../store/users.ts';
import { accountAccess, idParams, loadAccount, pathId, readableAccounts } from './load.ts';

export const accountRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/accounts',
    summary: 'Download account list',
    async handler(ctx) {
      const visible = await readableAccounts(ctx);
      const roles = await accounts.accountRoles(ctx.services.db, visible.map((a) => a.id));
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
        assets: (await listAssets(db, account.id)).map((a) => presentAsset(a)),
        users: (await listUsers(db, { accountId: account.id, includeInactive: true })).map(presentUser),
        status: 200,
      };
    },
  },
];
