import type { Knex } from 'knex';
import { hashPassword } from '../../worker/src/tasks.ts';
import { createAccount } from '../../server/src/store/write/accounts.ts';
import { FIXTURE } from './fixtureWriter.ts';
import { createAsset } from '../../server/src/store/write/assets.ts';
import { recordBeliefs } from '../../server/src/store/write/beliefs.ts';
import { getOrCreateSource } from '../../server/src/store/write/sources.ts';
import { type Sensor } from '../../server/src/store/sensors.ts';
import { createSensor } from '../../server/src/store/write/sensors.ts';
import { issueToken } from '../../server/src/store/write/tokens.ts';
import { listRoles, type User } from '../../server/src/store/users.ts';
import { createUser } from '../../server/src/store/write/users.ts';

export const PASSWORD = 'test-password';
// One hash for every test user: bcrypt is deliberately slow.
let hashed: Promise<string> | undefined;

let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${++counter}`;

/** Builders that write straight to the store, for arranging a test; the test then talks HTTP. */
export function factories(db: Knex) {
  return {
    async account(props: { name?: string; roles?: string[]; consultancyAccountId?: number | null } = {}) {
      return db.transaction((trx) =>
        createAccount(trx, FIXTURE, {
          name: props.name ?? unique('account'),
          roles: props.roles ?? [],
          consultancyAccountId: props.consultancyAccountId ?? null,
        }),
      );
    },
    /** A user with a live token. */
    async user(props: {
      accountId: number;
      roles?: string[];
      email?: string;
      active?: boolean;
      /** The profile's zone; the store's default (Europe/Amsterdam) unless given. */
      timezone?: string;
    }): Promise<{ user: User; token: string }> {
      const all = await listRoles(db);
      const roleIds = (props.roles ?? []).map((name) => all.find((r) => r.name === name)!.id);
      const name = unique('user');
      const user = await db.transaction(async (trx) =>
        createUser(trx, FIXTURE, {
          email: props.email ?? `${name}@example.com`,
          username: name,
          passwordHash: await (hashed ??= hashPassword(PASSWORD)),
          accountId: props.accountId,
          roleIds,
          active: props.active ?? true,
          timezone: props.timezone,
        }),
      );
      return { user, token: await issueToken(db, user.id, 3600) };
    },
    /** The id of an asset type, made when missing (as the device set-up makes 'house load' and 'grid meter'). */
    async assetType(name: string): Promise<number> {
      const find = () => db('generic_asset_type').where({ name }).first<{ id: number } | undefined>('id');
      const found = await find();
      if (found) return found.id;
      await db('generic_asset_type').insert({ name, description: name });
      return (await find())!.id;
    },
    async asset(props: {
      accountId: number | null;
      type?: string;
      name?: string;
      attributes?: Record<string, unknown>;
      parentId?: number;
    }) {
      const typeId = await this.assetType(props.type ?? 'battery');
      return db.transaction((trx) =>
        createAsset(trx, FIXTURE, {
          name: props.name ?? unique('asset'),
          account_id: props.accountId,
          generic_asset_type_id: typeId,
          parent_asset_id: props.parentId ?? null,
          latitude: null,
          longitude: null,
          attributes: props.attributes ?? {},
        }),
      );
    },
    /** Values at a fixed step from `startMs`, all known at `beliefTimeMs`, from a demo-script source. */
    async beliefs(sensorId: number, startMs: number, stepMs: number, values: number[], beliefTimeMs: number) {
      await db.transaction(async (trx) => {
        const source = await getOrCreateSource(trx, { name: 'test fixtures', type: 'demo script' });
        await recordBeliefs(
          trx,
          values.map((value, i) => ({ sensorId, eventStartMs: startMs + i * stepMs, beliefTimeMs, sourceId: source.id, value })),
          { allowOverwrite: false },
        );
      });
    },
    async sensor(props: {
      assetId: number;
      unit?: string;
      resolutionMinutes?: number;
      timezone?: string;
      name?: string;
      attributes?: Record<string, unknown>;
    }): Promise<Sensor> {
      return db.transaction((trx) =>
        createSensor(trx, FIXTURE, {
          name: props.name ?? unique('sensor'),
          unit: props.unit ?? 'MW',
          event_resolution_ms: (props.resolutionMinutes ?? 15) * 60_000,
          timezone: props.timezone ?? 'UTC',
          generic_asset_id: props.assetId,
          attributes: props.attributes ?? {},
        }),
      );
    },
  };
}
