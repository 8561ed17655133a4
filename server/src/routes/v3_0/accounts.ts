import { z } from 'zod';
import * as wire from '../../contracts/responses.ts';
import { route } from '../../http/routes.ts';
import { presentAccount, presentAsset, presentUser } from '../../presenters/index.ts';
import * as accounts from '../../store/accounts.ts';
import { listAssets } from '../../store/assets.ts';
import { listUsers } from '../../store/users.ts';
import { accountById, idParams } from '../load.ts';
import { readableAccounts } from '../../policies/visibility.ts';

export const accountRoutes = [
  route({
    method: 'GET',
    path: '/accounts',
    summary: 'Download account list',
    async command({ db, user }) {
      const visible = await readableAccounts(db, user);
      const roles = await accounts.accountRoles(
        db,
        visible.map((a) => a.id),
      );
      return visible.map((a) => presentAccount(a, roles.get(a.id) ?? []));
    },
    response: { schema: z.array(wire.account) },
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
];
