import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../../bench/_stats.ts';
import { tableNames } from '../helpers/db.ts';
import { legacySite, VERSIONS, type LegacySite } from '../helpers/legacy.ts';
import { headerLines, type RawResponse } from '../helpers/testServer.ts';

/**
 * Fuzz test (issue 10): every route of the service listings — v3.0, the shared `/api/` ones and
 * the served legacy versions — gets malformed ids, bodies and headers. Whatever comes back must
 * be below 500, typed JSON, and the store must hold as many rows as before. Deterministic: the
 * junk comes from a seeded generator, so a failure replays.
 */
let site: LegacySite;
let routes: { method: string; path: string }[];
let ids: Record<string, string>;

beforeAll(async () => {
  site = await legacySite();
  const battery = await site.battery();
  ids = { id: String(battery.id), uuid: '0b5a8c2e-6f0e-4c1e-9a53-1c1f8f3c2b11' };
  const listing = await site.t.request('GET', '/api/v3_0');
  routes = (listing.body.services as { name: string }[]).map(({ name }) => {
    const [method, path] = name.split(' ');
    return { method, path: `/api/v3_0${path}` };
  });
  routes.push(
    { method: 'POST', path: '/api/requestAuthToken' },
    { method: 'GET', path: '/api/' },
    { method: 'GET', path: '/api/ops/ping' },
  );
  for (const { prefix } of VERSIONS) {
    const legacy = await site.t.request('GET', `/api/${prefix}/getService`);
    for (const { name } of legacy.body.services as { name: string }[]) {
      // Message endpoints are listed by name and answer GET or POST; resources by method and path.
      const [method, path] = name.includes(' ') ? name.split(' ') : ['', `/${name}`];
      for (const m of method ? [method] : ['GET', 'POST']) routes.push({ method: m, path: `/api/${prefix}${path}` });
    }
  }
}, 60_000);
afterAll(() => site.t.close());

const random = seeded(10);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** Path parts that are no id, or an id written oddly. */
const badIds = ['04', '-1', 'abc', '1e3', '9007199254740993', '%00', '..%2f..%2fetc', '%E0%A4%A', 'null', "1'--", ' 1'];

/** Values a field should not hold. */
const junk = [
  null,
  true,
  -1,
  0,
  1.5,
  1e308,
  -1e308,
  'NaN',
  '',
  ' ',
  'x'.repeat(300),
  '2030-01-01',
  '2030-01-01T00:00:00+25:00',
  'PT',
  'P1M',
  '-PT15M',
  'kW',
  '04',
  [],
  [null],
  [[[]]],
  {},
  { sensor: 999999 },
  { sensor: '1' },
  ['a', 1, null],
];
const fields = [
  'start',
  'duration',
  'values',
  'unit',
  'sensor',
  'prior',
  'horizon',
  'resolution',
  'type',
  'name',
  'email',
  'password',
  'account_id',
  'generic_asset_id',
  'generic_asset_type_id',
  'event_resolution',
  'attributes',
  'latitude',
  'timezone',
  'flex-model',
  'flex-context',
  'soc-at-start',
  'active',
  'flexmeasures_roles',
  'connection',
  'event',
  'value',
  'datetime',
];

/** A JSON object of a few known field names holding junk, nested now and then. */
function junkObject(depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = 1 + Math.floor(random() * 4);
  for (let i = 0; i < n; i++) out[pick(fields)] = depth < 2 && random() < 0.2 ? junkObject(depth + 1) : pick(junk);
  return out;
}

/** Bodies that are no JSON, the wrong JSON, too deep, or Python's special numbers. */
function junkBodies(): string[] {
  return [
    '{',
    '{"a": 1}}',
    "{'email': 1}",
    'null',
    '[]',
    '"text"',
    '1e999',
    '{"values": [NaN, Infinity], "start": -Infinity}',
    '{"a":'.repeat(3000) + '1' + '}'.repeat(3000),
    '\u0000\uffff',
    JSON.stringify(junkObject()),
    JSON.stringify(junkObject()),
    JSON.stringify([junkObject()]),
  ];
}

/** Query strings of wrong types, empty values, repeated keys and odd encodings. */
const junkQueries = [
  'account_id=abc&asset_id=04&sensor_id=-1&limit=1e999&page=0&per_page=-5',
  'start=2030-01-01&end=2030-01-01T00:00:00%2B25:00&duration=PT&resolution=P1M&horizon=x&prior=',
  'include_data=maybe&most_recent_beliefs_only=2&include_inactive=&width=1e308&height=NaN',
  'unit=&sign-convention=sideways&source=%FF&sensor=ea1.x&connection=&event=ea1.2021-01.x:1:2:soc',
  'id=1&id=2&account_id=1&account_id=2&duration=PT1H&duration=P1D',
  `auth_token=${'x'.repeat(2000)}`,
];

/** Header sets that authenticate wrongly, type the body wrongly or encode it wrongly. */
function headerSets(token: string): Record<string, string>[] {
  return [
    { Authorization: token, 'Content-Type': 'application/json' },
    { Authorization: token },
    { Authorization: token, 'Content-Type': 'text/plain' },
    { Authorization: token, 'Content-Type': 'multipart/form-data' },
    { Authorization: token, 'Content-Type': 'multipart/form-data; boundary=x' },
    { Authorization: token, 'Content-Type': 'application/x-www-form-urlencoded' },
    { Authorization: token, 'Content-Type': 'application/json; charset=utf-7' },
    { Authorization: token, 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    { Authorization: token, 'Content-Type': 'application/json', Accept: 'text/html' },
    { Authorization: 'Bearer', 'Content-Type': 'application/json' },
    { Authorization: `${token}\u00e9`.replace(/[^\x20-\xff]/g, ''), 'Content-Type': 'application/json' },
    { 'Content-Type': 'application/json' },
  ];
}

async function countRows(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await tableNames(site.t.db)) {
    const [{ n }] = await site.t.db(table).count<{ n: number }[]>({ n: '*' });
    counts[table] = Number(n);
  }
  return counts;
}

function check(res: RawResponse, what: string): void {
  expect(res.status, what).toBeLessThan(500);
  expect(res.status, what).toBeGreaterThanOrEqual(200);
  expect(headerLines(res, 'content-type')[0] ?? '', what).toMatch(/^application\/json/);
  if (res.text) expect(() => JSON.parse(res.text), what).not.toThrow();
}

describe('fuzzing every listed route', () => {
  it('finds the routes of v3.0, /api/ and the legacy versions', () => {
    expect(routes.length).toBeGreaterThan(60);
    expect(routes.filter((r) => r.path.includes('<'))).not.toHaveLength(0);
  });

  it('answers malformed ids, bodies and headers below 500, as JSON, changing nothing', async () => {
    const before = await countRows();
    let sent = 0;
    const started = performance.now();
    for (const { method, path } of routes) {
      const hasIds = path.includes('<');
      // Existing ids only with a stranger's token or no body worth obeying: nothing may change.
      const paths = hasIds
        ? [...badIds.map((bad) => path.replace(/<(\w+)>/g, bad)), path.replace(/<(\w+)>/g, (_, key: string) => ids[key] ?? ids.id)]
        : [path];
      for (const [i, url] of paths.entries()) {
        const withRealIds = hasIds && i === paths.length - 1;
        const writes = method !== 'GET';
        const token = withRealIds && writes ? site.stranger.token : site.member.token;
        // Junk bodies where the id is right (or there is none); a wrong id is refused before the body matters.
        const badId = hasIds && !withRealIds;
        const bodies = badId ? [writes ? '{}' : undefined] : writes || random() < 0.3 ? junkBodies() : [undefined];
        for (const body of bodies) {
          const headers = pick(headerSets(token));
          const res = await site.t.rawRequest(method, url, headers, body);
          check(res, `${method} ${url} ${JSON.stringify(headers)} ${body?.slice(0, 80)}`);
          sent++;
        }
        // Odd headers and query strings, with a body that is no JSON.
        if (i === 0) {
          for (const query of junkQueries) {
            const res = await site.t.rawRequest(method, `${url}?${query}`, { Authorization: token }, writes ? '{}' : undefined);
            check(res, `${method} ${url}?${query}`);
            sent++;
          }
          // A third of the header sets per route, taking turns: each set still meets ~50 routes.
          for (const headers of headerSets(token).filter((_, h) => h % 3 === sent % 3)) {
            const res = await site.t.rawRequest(method, url, headers, writes ? '{' : undefined);
            check(res, `${method} ${url} ${JSON.stringify(headers)}`);
            sent++;
          }
        }
      }
    }
    expect(sent).toBeGreaterThan(2000);
    expect(await countRows()).toEqual(before);
    console.log(`fuzz: ${sent} requests to ${routes.length} routes in ${Math.round(performance.now() - started)} ms`);
  }, 60_000);
});
