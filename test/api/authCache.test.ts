import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { updateUser } from '../../server/src/store/write/users.ts';
import { FIXTURE } from '../helpers/fixtureWriter.ts';

// Authenticated users are remembered between requests (store/authCache.ts); a change made
// through the store, by this process or another one, is seen by the very next request.
let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
});
afterAll(() => t.close());

const me = (token: string) => t.request('GET', `/api/v3_0/accounts/${accountId}`, { token });

describe('the remembered user', () => {
  it('is dropped when the user is switched off, even by a write that bypasses the server', async () => {
    const { user, token } = await f.user({ accountId });
    expect((await me(token)).status).toBe(200);
    expect((await me(token)).status).toBe(200);
    // Straight to the store, as the CLI would from its own process.
    await t.db.transaction((trx) => updateUser(trx, FIXTURE, user, { active: false }));
    expect((await me(token)).status).toBe(401);
  });

  it('carries its new roles at once', async () => {
    const { user, token } = await f.user({ accountId });
    const role = (await t.db('role').where({ name: 'account-admin' }).first<{ id: number }>('id')).id;
    const other = (await f.user({ accountId })).user;
    // Editing another user of the account is for its account-admins.
    const users = () => t.request('PATCH', `/api/v3_0/users/${other.id}`, { token, json: { timezone: 'UTC' } });
    expect((await users()).status).toBe(403);
    await t.db.transaction((trx) => updateUser(trx, FIXTURE, user, { roleIds: [role] }));
    expect((await users()).status).toBe(200);
  });
});
