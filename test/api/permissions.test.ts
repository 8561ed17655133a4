import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../server/src/store/write/tokens.ts';
import { v3Routes } from '../../server/src/routes/v3_0/index.ts';
import { forbidden, unauthorized } from '../helpers/bodies.ts';
import { snapshot } from '../helpers/db.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * The permission matrix of reference §4.3/§4.4 over two accounts: A (a client of consultancy C)
 * and B. Callers live in A unless named otherwise; every test makes a fresh caller and fresh
 * objects, so deletions, deactivations and password resets cannot leak into other cases.
 */
type Role = 'member' | 'accountAdmin' | 'consultant' | 'consultancyMember' | 'admin' | 'adminReader';
type Caller = Role | 'bearer' | 'inactive' | 'anonymous' | 'expired';

const roles: Role[] = ['member', 'accountAdmin', 'consultant', 'consultancyMember', 'admin', 'adminReader'];
const unauthenticated: Caller[] = ['inactive', 'anonymous', 'expired'];

let t: TestServer;
let f: ReturnType<typeof factories>;
let accounts: { A: number; B: number; C: number };
/** Users to read and edit: one in A besides the caller, one in B. Their tokens are never used. */
let users: { userA: number; userB: number };

/** Fresh objects for one case: assets and sensors in A, B and public. */
async function world() {
  const [assetA, assetB, assetPublic] = await Promise.all([
    f.asset({ accountId: accounts.A }),
    f.asset({ accountId: accounts.B }),
    f.asset({ accountId: null }),
  ]);
  return {
    assetA: assetA.id,
    assetB: assetB.id,
    assetPublic: assetPublic.id,
    sensorA: (await f.sensor({ assetId: assetA.id })).id,
    sensorB: (await f.sensor({ assetId: assetB.id })).id,
    sensorPublic: (await f.sensor({ assetId: assetPublic.id })).id,
    ...users,
    A: accounts.A,
    B: accounts.B,
  };
}
type World = Awaited<ReturnType<typeof world>> & { me: number };

/** A fresh caller: the Authorization header to send (if any) and the user's id. */
async function caller(who: Caller): Promise<{ header?: string; id: number }> {
  const make = async (accountId: number, userRoles: string[], active = true) => f.user({ accountId, roles: userRoles, active });
  switch (who) {
    case 'member':
      return asCaller(await make(accounts.A, []));
    case 'bearer': {
      const u = await make(accounts.A, []);
      return { header: `Bearer ${u.token}`, id: u.user.id };
    }
    case 'accountAdmin':
      return asCaller(await make(accounts.A, ['account-admin']));
    case 'consultant':
      return asCaller(await make(accounts.C, ['consultant']));
    case 'consultancyMember':
      return asCaller(await make(accounts.C, []));
    case 'admin':
      return asCaller(await make(accounts.A, ['admin']));
    case 'adminReader':
      return asCaller(await make(accounts.A, ['admin-reader']));
    case 'inactive':
      return asCaller(await make(accounts.A, ['admin'], false));
    case 'expired': {
      const u = await make(accounts.A, ['admin']);
      await t.db('auth_token').where({ user_id: u.user.id }).delete();
      return { header: await issueToken(t.db, u.user.id, 60, Date.now() - 3_600_000), id: u.user.id };
    }
    case 'anonymous':
      return { id: 0 };
  }
}
const asCaller = (u: { user: { id: number }; token: string }) => ({ header: u.token, id: u.user.id });

interface Case {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: (w: World) => string;
  query?: (w: World) => Record<string, number>;
  json?: (w: World) => unknown;
  /** Expected status per role, or one status for every authenticated caller. */
  expect: Record<Role, number> | number;
}

/** Statuses in the order member, accountAdmin, consultant, consultancyMember, admin, adminReader. */
const by = (...s: [number, number, number, number, number, number]) =>
  Object.fromEntries(roles.map((r, i) => [r, s[i]])) as Record<Role, number>;

// Readable by members of A, consultants of C and admin(-reader)s.
const readA = by(200, 200, 200, 403, 200, 200);
// Only admin(-reader)s read B.
const readB = by(403, 403, 403, 403, 200, 200);
const onlyAdmin = (ok: number) => by(403, 403, 403, 403, ok, 403);

const batteryType = 5;
const cases: Case[] = [
  { name: 'GET /assets (own account)', method: 'GET', path: () => '/assets', expect: 200 },
  { name: 'GET /assets?account_id=A', method: 'GET', path: () => '/assets', query: (w) => ({ account_id: w.A }), expect: readA },
  { name: 'GET /assets?account_id=B', method: 'GET', path: () => '/assets', query: (w) => ({ account_id: w.B }), expect: readB },
  { name: 'GET /assets/public', method: 'GET', path: () => '/assets/public', expect: 200 },
  { name: 'GET /assets/types', method: 'GET', path: () => '/assets/types', expect: 200 },
  {
    name: 'POST /assets in A',
    method: 'POST',
    path: () => '/assets',
    json: (w) => ({ name: `new in A ${w.me}`, generic_asset_type_id: batteryType, account_id: w.A }),
    expect: by(403, 201, 403, 403, 201, 403),
  },
  {
    name: 'POST /assets in B',
    method: 'POST',
    path: () => '/assets',
    json: (w) => ({ name: `new in B ${w.me}`, generic_asset_type_id: batteryType, account_id: w.B }),
    // The account-admin passes the check on their own account, then fails the account_id rule.
    expect: by(403, 422, 403, 403, 201, 403),
  },
  {
    name: 'POST /assets public',
    method: 'POST',
    path: () => '/assets',
    json: (w) => ({ name: `new public ${w.me}`, generic_asset_type_id: batteryType, account_id: null }),
    expect: onlyAdmin(201),
  },
  { name: 'GET /assets/<A>', method: 'GET', path: (w) => `/assets/${w.assetA}`, expect: readA },
  { name: 'GET /assets/<B>', method: 'GET', path: (w) => `/assets/${w.assetB}`, expect: readB },
  { name: 'GET /assets/<public>', method: 'GET', path: (w) => `/assets/${w.assetPublic}`, expect: 200 },
  {
    name: 'PATCH /assets/<A>',
    method: 'PATCH',
    path: (w) => `/assets/${w.assetA}`,
    json: () => ({ latitude: 10 }),
    expect: by(200, 200, 403, 403, 200, 200),
  },
  {
    name: 'PATCH /assets/<B>',
    method: 'PATCH',
    path: (w) => `/assets/${w.assetB}`,
    json: () => ({ latitude: 10 }),
    expect: onlyAdmin(200),
  },
  {
    name: 'PATCH /assets/<public>',
    method: 'PATCH',
    path: (w) => `/assets/${w.assetPublic}`,
    json: () => ({ latitude: 10 }),
    expect: onlyAdmin(200),
  },
  { name: 'DELETE /assets/<A>', method: 'DELETE', path: (w) => `/assets/${w.assetA}`, expect: by(403, 204, 403, 403, 204, 403) },
  { name: 'DELETE /assets/<B>', method: 'DELETE', path: (w) => `/assets/${w.assetB}`, expect: onlyAdmin(204) },
  { name: 'DELETE /assets/<public>', method: 'DELETE', path: (w) => `/assets/${w.assetPublic}`, expect: onlyAdmin(204) },

  { name: 'GET /sensors (own account)', method: 'GET', path: () => '/sensors', expect: 200 },
  { name: 'GET /sensors?account_id=A', method: 'GET', path: () => '/sensors', query: (w) => ({ account_id: w.A }), expect: readA },
  { name: 'GET /sensors?account_id=B', method: 'GET', path: () => '/sensors', query: (w) => ({ account_id: w.B }), expect: readB },
  ...(['A', 'B', 'Public'] as const).map((where): Case => ({
    name: `POST /sensors on the asset in ${where}`,
    method: 'POST',
    path: () => '/sensors',
    json: (w) => ({ name: 'power', unit: 'MW', event_resolution: 'PT15M', generic_asset_id: w[`asset${where}`] }),
    expect: where === 'A' ? by(201, 201, 403, 403, 201, 201) : onlyAdmin(201),
  })),
  { name: 'GET /sensors/<A>', method: 'GET', path: (w) => `/sensors/${w.sensorA}`, expect: readA },
  { name: 'GET /sensors/<B>', method: 'GET', path: (w) => `/sensors/${w.sensorB}`, expect: readB },
  { name: 'GET /sensors/<public>', method: 'GET', path: (w) => `/sensors/${w.sensorPublic}`, expect: 200 },
  {
    name: 'PATCH /sensors/<A>',
    method: 'PATCH',
    path: (w) => `/sensors/${w.sensorA}`,
    json: () => ({ name: 'x' }),
    expect: by(403, 200, 403, 403, 200, 403),
  },
  {
    name: 'PATCH /sensors/<B>',
    method: 'PATCH',
    path: (w) => `/sensors/${w.sensorB}`,
    json: () => ({ name: 'x' }),
    expect: onlyAdmin(200),
  },
  {
    name: 'PATCH /sensors/<public>',
    method: 'PATCH',
    path: (w) => `/sensors/${w.sensorPublic}`,
    json: () => ({ name: 'x' }),
    expect: onlyAdmin(200),
  },
  { name: 'DELETE /sensors/<A>', method: 'DELETE', path: (w) => `/sensors/${w.sensorA}`, expect: by(403, 204, 403, 403, 204, 403) },
  { name: 'DELETE /sensors/<B>', method: 'DELETE', path: (w) => `/sensors/${w.sensorB}`, expect: onlyAdmin(204) },
  { name: 'DELETE /sensors/<public>', method: 'DELETE', path: (w) => `/sensors/${w.sensorPublic}`, expect: onlyAdmin(204) },

  { name: 'GET /users (own account)', method: 'GET', path: () => '/users', expect: 200 },
  // Consultants may list their clients' users (reference §4.4), though not read them one by one.
  { name: 'GET /users?account_id=A', method: 'GET', path: () => '/users', query: (w) => ({ account_id: w.A }), expect: readA },
  { name: 'GET /users?account_id=B', method: 'GET', path: () => '/users', query: (w) => ({ account_id: w.B }), expect: readB },
  { name: 'GET /users/<self>', method: 'GET', path: (w) => `/users/${w.me}`, expect: 200 },
  { name: 'GET /users/<A>', method: 'GET', path: (w) => `/users/${w.userA}`, expect: by(200, 200, 403, 403, 200, 200) },
  { name: 'GET /users/<B>', method: 'GET', path: (w) => `/users/${w.userB}`, expect: readB },
  { name: 'PATCH /users/<self>', method: 'PATCH', path: (w) => `/users/${w.me}`, json: () => ({ timezone: 'UTC' }), expect: 200 },
  {
    name: 'PATCH /users/<A>',
    method: 'PATCH',
    path: (w) => `/users/${w.userA}`,
    json: () => ({ timezone: 'UTC' }),
    expect: by(403, 200, 403, 403, 200, 403),
  },
  {
    name: 'PATCH /users/<B>',
    method: 'PATCH',
    path: (w) => `/users/${w.userB}`,
    json: () => ({ timezone: 'UTC' }),
    expect: onlyAdmin(200),
  },
  { name: 'PATCH /users/<self>/password-reset', method: 'PATCH', path: (w) => `/users/${w.me}/password-reset`, expect: 200 },
  {
    name: 'PATCH /users/<A>/password-reset',
    method: 'PATCH',
    path: (w) => `/users/${w.userA}/password-reset`,
    expect: by(403, 200, 403, 403, 200, 403),
  },
  { name: 'PATCH /users/<B>/password-reset', method: 'PATCH', path: (w) => `/users/${w.userB}/password-reset`, expect: onlyAdmin(200) },

  { name: 'GET /accounts', method: 'GET', path: () => '/accounts', expect: 200 },
  { name: 'GET /accounts/<A>', method: 'GET', path: (w) => `/accounts/${w.A}`, expect: readA },
  { name: 'GET /accounts/<B>', method: 'GET', path: (w) => `/accounts/${w.B}`, expect: readB },
];

function expectedStatus(c: Case, who: Caller): number {
  if (unauthenticated.includes(who)) return 401;
  const role: Role = who === 'bearer' ? 'member' : (who as Role);
  return typeof c.expect === 'number' ? c.expect : c.expect[role];
}

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const C = (await f.account({ name: 'Consultancy C' })).id;
  accounts = {
    A: (await f.account({ name: 'Client A', consultancyAccountId: C })).id,
    B: (await f.account({ name: 'Other B' })).id,
    C,
  };
  users = {
    userA: (await f.user({ accountId: accounts.A })).user.id,
    userB: (await f.user({ accountId: accounts.B })).user.id,
  };
});
afterAll(() => t.close());

const callers: Caller[] = [...roles, 'bearer', ...unauthenticated];
const table = cases.flatMap((c) => callers.map((who) => [c.name, who, c] as const));

describe('permission matrix', () => {
  it.each(table)('%s as %s', async (_, who, c) => {
    const me = await caller(who);
    const w: World = { ...(await world()), me: me.id || users.userA };
    const want = expectedStatus(c, who);
    const before = want >= 300 && c.method !== 'GET' ? await snapshot(t.db) : undefined;

    const res = await t.request(c.method, `/api/v3_0${c.path(w)}`, {
      headers: me.header ? { Authorization: me.header } : {},
      query: c.query?.(w),
      json: c.json?.(w),
    });

    expect(res.status, JSON.stringify(res.body)).toBe(want);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    if (want === 401) expect(res.body).toEqual(unauthorized);
    if (want === 403) expect(res.body).toEqual(forbidden);
    // A refused request leaves every table as it was.
    if (before) expect(await snapshot(t.db)).toEqual(before);
  });
});

describe('every authenticated route', () => {
  const secured = v3Routes().filter((r) => !r.public);
  it.each(secured.flatMap((r) => unauthenticated.map((who) => [`${r.method} ${r.path}`, who, r] as const)))(
    '%s refuses %s callers with 401',
    async (_, who, route) => {
      const me = await caller(who);
      const res = await t.request(route.method, `/api/v3_0${route.path.replace(/:(\w+)/g, '1')}`, {
        headers: me.header ? { Authorization: me.header } : {},
        json: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
      });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(unauthorized);
    },
  );

  it('refuses a token that was never issued, and one for a deleted user', async () => {
    const garbage = await t.request('GET', '/api/v3_0/assets', { token: 'not-a-token' });
    expect(garbage.status).toBe(401);
    const { user, token } = await f.user({ accountId: accounts.A });
    await t.db('user').where({ id: user.id }).delete();
    const gone = await t.request('GET', '/api/v3_0/assets', { token });
    expect(gone.status).toBe(401);
  });
});
