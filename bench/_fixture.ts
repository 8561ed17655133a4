import type { Knex } from 'knex';
import { hashPassword } from '../worker/src/tasks.ts';
import { createAccount } from '../server/src/store/accounts.ts';
import { unrecorded } from '../server/src/store/auditLog.ts';
import { createAsset, type Asset } from '../server/src/store/assets.ts';
import { createUser, listRoles } from '../server/src/store/users.ts';

/** The benches' store writes: nobody made them, so they record no audit entry. */
export const BENCH_WRITER = unrecorded('a benchmark fixture');

export const BENCH_EMAIL = 'bench@example.com';
export const BENCH_PASSWORD = 'bench-password';

/** The benches' account and its user (an account admin unless `roles` says otherwise). */
export async function benchUser(trx: Knex.Transaction, roles: string[] = ['account-admin'], email = BENCH_EMAIL) {
  const account = await createAccount(trx, BENCH_WRITER, { name: 'bench', roles: [], consultancyAccountId: null });
  const roleIds = (await listRoles(trx)).filter((r) => roles.includes(r.name)).map((r) => r.id);
  const user = await createUser(trx, BENCH_WRITER, {
    email,
    username: 'bench',
    passwordHash: await hashPassword(BENCH_PASSWORD),
    accountId: account.id,
    roleIds,
  });
  return { accountId: account.id, userId: user.id };
}

/** An asset of `type` in the account, without location or attributes unless given. */
export async function benchAsset(
  trx: Knex.Transaction,
  accountId: number,
  name: string,
  type = 'battery',
  more: Partial<Pick<Asset, 'flex_model' | 'flex_context' | 'attributes'>> = {},
): Promise<Asset> {
  const typeRow = await trx('generic_asset_type').where({ name: type }).first<{ id: number }>('id');
  return createAsset(trx, BENCH_WRITER, {
    name,
    account_id: accountId,
    generic_asset_type_id: typeRow.id,
    parent_asset_id: null,
    latitude: null,
    longitude: null,
    attributes: {},
    ...more,
  });
}
