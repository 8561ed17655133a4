import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopback } from '../../server/src/routes/v3_0/setup.ts';
import type { AppContext } from '../../server/src/http/context.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const first = { account_name: 'My site', email: 'admin@example.com', username: 'admin', password: 'a long secret' };

describe('first start', () => {
  it('reports that set-up is needed while no user exists', async () => {
    const res = await t.request('GET', '/api/v3_0/setup');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ needed: true, local: true, status: 200 });
  });

  it('validates the form with field messages', async () => {
    const res = await t.request('POST', '/api/v3_0/setup', { json: { ...first, password: 'short', email: 'nope' } });
    expect(res.status).toBe(422);
    expect(res.body.message.json).toEqual({
      email: ['Not a valid email address.'],
      password: ['Shorter than minimum length 8.'],
    });
    expect((await t.request('GET', '/api/v3_0/setup')).body.needed).toBe(true);
  });

  it('creates the first account and admin once, with a working token', async () => {
    const res = await t.request('POST', '/api/v3_0/setup', { json: first });
    expect(res.status).toBe(201);
    expect(res.body.account).toMatchObject({ id: expect.any(Number), name: 'My site' });
    expect(res.body.user).toMatchObject({ email: 'admin@example.com', username: 'admin', account_id: res.body.account.id });
    const roles = (await t.request('GET', '/api/v3_0/roles', { token: res.body.auth_token })).body as { id: number; name: string }[];
    const adminRole = roles.find((r) => r.name === 'admin')!;
    expect(res.body.user.flexmeasures_roles).toEqual([adminRole.id]);

    const login = await t.request('POST', '/api/requestAuthToken', { json: { email: first.email, password: first.password } });
    expect(login.status).toBe(200);
    expect((await t.request('GET', '/api/v3_0/setup')).body.needed).toBe(false);

    const again = await t.request('POST', '/api/v3_0/setup', { json: { ...first, email: 'other@example.com', username: 'other' } });
    expect(again.status).toBe(403);
    expect(await t.db('user').count<{ n: number }[]>({ n: '*' })).toEqual([{ n: 1 }]);
  });
});

describe('isLoopback', () => {
  const ctxFrom = (remoteAddress: string) => ({ req: { socket: { remoteAddress } } }) as unknown as AppContext;

  it('accepts this machine only, judged by the socket address', () => {
    for (const a of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) expect(isLoopback(ctxFrom(a))).toBe(true);
    for (const a of ['192.168.1.20', '::ffff:10.0.0.2', 'fe80::1', '', '1127.0.0.1']) expect(isLoopback(ctxFrom(a))).toBe(false);
  });
});
