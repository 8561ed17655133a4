import type { Knex } from 'knex';
import { hashPassword } from '../worker/src/tasks.ts';
import { createAccount } from '../server/src/store/write/accounts.ts';
import { unrecorded } from '../server/src/store/auditLog.ts';
import { type Asset } from '../server/src/store/assets.ts';
import { createAsset } from '../server/src/store/write/assets.ts';
import { listRoles } from '../server/src/store/users.ts';
import { createUser } from '../server/src/store/write/users.ts';

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

/**
 * A schedule trigger for the bench battery (40 kWh of 10–95 kWh, 5 kW, 90 % round trip) behind a
 * 4.5 kW site connection, against a price sensor, for `steps` quarter hours from `startMs`.
 * @param inputs the price sensor; the inflexible load sensor and the storage efficiency, where a bench measures them.
 */
export function benchScheduleBody(
  startMs: number,
  steps: number,
  inputs: { prices: number; load?: number; storageEfficiency?: number; force: boolean },
): string {
  return JSON.stringify({
    start: new Date(startMs).toISOString(),
    duration: `PT${(steps * 15) / 60}H`,
    'flex-model': {
      'soc-at-start': 40,
      'soc-min': 10,
      'soc-max': 95,
      'soc-unit': 'kWh',
      'power-capacity': '5 kW',
      'roundtrip-efficiency': 0.9,
      ...(inputs.storageEfficiency !== undefined && { 'storage-efficiency': inputs.storageEfficiency }),
    },
    'flex-context': {
      'consumption-price-sensor': inputs.prices,
      ...(inputs.load !== undefined && { 'inflexible-device-sensors': [inputs.load] }),
      'site-power-capacity': '4.5 kW',
    },
    'force-new-job-creation': inputs.force,
  });
}
