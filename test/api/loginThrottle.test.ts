import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshot } from '../helpers/db.ts';
import { factories, PASSWORD } from '../helpers/factories.ts';
import { startTestServer, type ApiResponse, type TestServer } from '../helpers/testServer.ts';

/**
 * Login throttling (issue 10): attempts are counted per account e-mail and per client address
 * before any password work, a used-up count answers 429 with `Retry-After`, and a flood of
 * logins leaves ordinary requests answering (their speed is measured by bench/login.ts).
 */
const login = (t: TestServer, email: string, password: string) => t.request('POST', '/api/requestAuthToken', { json: { email, password } });

function expectTooMany(res: ApiResponse): void {
  expect(res.status).toBe(429);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  const wait = Number(res.headers.get('retry-after'));
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(60);
  expect(res.body).toEqual({ errors: [`Too many login attempts. Try again in ${wait} seconds.`], status: 429 });
}

describe('per account e-mail (FLEXSITE_LOGIN_ATTEMPTS_PER_EMAIL)', () => {
  let t: TestServer;
  let f: ReturnType<typeof factories>;
  let accountId: number;
  beforeAll(async () => {
    t = await startTestServer({ FLEXSITE_LOGIN_ATTEMPTS_PER_EMAIL: '3' });
    f = factories(t.db);
    accountId = (await f.account()).id;
  });
  afterAll(() => t.close());

  it('answers 429 with Retry-After once the attempts are used up, even for the right password', async () => {
    const { user } = await f.user({ accountId });
    for (let i = 0; i < 3; i++) expect((await login(t, user.email, 'wrong')).status).toBe(401);
    const tokensBefore = await t.db('auth_token').where({ user_id: user.id }).count({ n: '*' });
    expectTooMany(await login(t, user.email, 'wrong'));
    expectTooMany(await login(t, user.email.toUpperCase(), PASSWORD));
    expect(await t.db('auth_token').where({ user_id: user.id }).count({ n: '*' })).toEqual(tokensBefore);
  });

  it('counts unknown e-mails alike, and leaves other e-mails alone', async () => {
    for (let i = 0; i < 3; i++) expect((await login(t, 'nobody@example.com', 'x')).status).toBe(404);
    expectTooMany(await login(t, 'nobody@example.com', 'x'));
    const { user } = await f.user({ accountId });
    expect((await login(t, user.email, PASSWORD)).status).toBe(200);
  });

  it('forgets earlier failures once the owner gets in', async () => {
    const { user } = await f.user({ accountId });
    for (let i = 0; i < 2; i++) expect((await login(t, user.email, 'wrong')).status).toBe(401);
    expect((await login(t, user.email, PASSWORD)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await login(t, user.email, 'wrong')).status).toBe(401);
    expect((await login(t, user.email, PASSWORD)).status).toBe(200);
  });
});

describe('per client address (FLEXSITE_LOGIN_ATTEMPTS_PER_ADDRESS)', () => {
  it('answers 429 to an address trying many e-mails', async () => {
    const t = await startTestServer({ FLEXSITE_LOGIN_ATTEMPTS_PER_ADDRESS: '4' });
    try {
      for (let i = 0; i < 4; i++) expect((await login(t, `guess${i}@example.com`, 'x')).status).toBe(404);
      expectTooMany(await login(t, 'guess4@example.com', 'x'));
    } finally {
      await t.close();
    }
  });
});

describe('a flood of wrong passwords', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  it('is throttled with 429s while ordinary reads keep answering, and changes nothing', async () => {
    const f = factories(t.db);
    const accountId = (await f.account()).id;
    const { user } = await f.user({ accountId });
    const reader = await f.user({ accountId });
    await f.asset({ accountId });
    const before = await snapshot(t.db);

    let flooding = true;
    const reads: number[] = [];
    const readLoop = (async () => {
      while (flooding) {
        const res = await t.request('GET', '/api/v3_0/assets', { token: reader.token });
        reads.push(res.status);
      }
    })();
    // 10 clients, 8 wrong passwords each, all at once.
    const flood = await Promise.all(Array.from({ length: 80 }, (_, i) => login(t, user.email, `wrong-${i}`)));
    flooding = false;
    await readLoop;

    const statuses = flood.map((r) => r.status);
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    // The default allows 10 attempts per e-mail a minute: only those reach the password check.
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    for (const res of flood.filter((r) => r.status === 429)) expectTooMany(res);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((s) => s === 200)).toBe(true);
    expect(await snapshot(t.db)).toEqual(before);
  });
});
