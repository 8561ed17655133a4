import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LEGACY_ROUTES, VERSIONS, expectDeprecationHeaders, fm1, legacySite, type LegacySite, type Prefix } from '../helpers/legacy.ts';
import { headerLines, startTestServer } from '../helpers/testServer.ts';

const everyRoute = VERSIONS.flatMap(({ prefix }) =>
  LEGACY_ROUTES[prefix].map((r) => [prefix, ...r.split(' ')] as [Prefix, string, string]),
);

const notFoundMessage =
  'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.';

let site: LegacySite;
beforeAll(async () => {
  site = await legacySite();
});
afterAll(() => site.t.close());

describe('served legacy versions: routing', () => {
  it.each(everyRoute)('/api/%s: %s %s exists and answers with the deprecation headers', async (prefix, method, path) => {
    const res = await site.t.rawRequest(
      method,
      `/api/${prefix}/${path}`,
      { Authorization: site.member.token, 'Content-Type': 'application/json' },
      '{}',
    );
    expect(res.status).not.toBe(405);
    expect(JSON.parse(res.text).message).not.toBe(notFoundMessage);
    expectDeprecationHeaders(res, prefix);
  });

  it.each([
    ['v1', 'GET', 'getConnection'],
    ['v1', 'POST', 'postPriceData'],
    ['v1', 'POST', 'postWeatherData'],
    ['v1', 'GET', 'getPrognosis'],
    ['v1', 'POST', 'postPrognosis'],
    ['v1_1', 'POST', 'postUdiEvent'],
    ['v1_1', 'GET', 'getDeviceMessage'],
    ['v1_2', 'GET', 'assets'],
    ['v1_3', 'GET', 'users'],
    ['v1_3', 'GET', 'charts/power'],
    ['v2_0', 'GET', 'getSomethingElse'],
  ] as [Prefix, string, string][])(
    '/api/%s: %s %s (a later version’s or no route) is 404, with the headers',
    async (prefix, method, path) => {
      const res = await site.t.rawRequest(method, `/api/${prefix}/${path}`, { Authorization: site.member.token });
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text)).toEqual({ message: notFoundMessage, status: 404 });
      expectDeprecationHeaders(res, prefix);
    },
  );

  it.each([
    ['v1', 'DELETE', 'getService'],
    ['v1_1', 'POST', 'getMeterData'],
    ['v1_2', 'GET', 'postMeterData'],
    ['v1_3', 'POST', 'getDeviceMessage'],
    ['v2_0', 'PUT', 'asset/7'],
  ] as [Prefix, string, string][])('/api/%s: %s %s is 405 INVALID_METHOD, with the headers', async (prefix, method, path) => {
    const res = await site.t.rawRequest(method, `/api/${prefix}/${path}`, { Authorization: site.member.token });
    expect(res.status).toBe(405);
    expect(JSON.parse(res.text)).toEqual({ result: 'Rejected', status: 'INVALID_METHOD', message: expect.any(String) });
    expectDeprecationHeaders(res, prefix);
  });

  it.each(VERSIONS.map((v) => v.prefix))('/api/%s: a stored upload answers with the headers', async (prefix) => {
    const sensor = await site.battery();
    const message = {
      type: 'PostMeterDataRequest',
      connection: fm1(sensor.id),
      values: [1],
      start: '2015-01-01T00:00:00Z',
      duration: 'PT15M',
      unit: 'MW',
    };
    const res = await site.t.rawRequest(
      'POST',
      `/api/${prefix}/postMeterData`,
      { Authorization: site.member.token, 'Content-Type': 'application/json' },
      JSON.stringify(message),
    );
    expect(res.status).toBe(200);
    expectDeprecationHeaders(res, prefix);
  });

  it('a 204 (an asset deleted) carries the headers too', async () => {
    const sensor = await site.battery();
    const res = await site.t.rawRequest('DELETE', `/api/v2_0/asset/${sensor.id}`, { Authorization: site.member.token });
    expect(res.status).toBe(204);
    expectDeprecationHeaders(res, 'v2_0');
  });

  it.each(VERSIONS.map((v) => v.prefix))('/api/%s: a message without a valid token is 401, with the headers', async (prefix) => {
    const res = await site.t.rawRequest(
      'POST',
      `/api/${prefix}/postMeterData`,
      { Authorization: 'not-a-token', 'Content-Type': 'application/json' },
      '{}',
    );
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toEqual({
      message: 'You could not be properly authenticated for this content or functionality.',
      status: 'UNAUTHORIZED',
    });
    expectDeprecationHeaders(res, prefix);
  });

  it.each(VERSIONS)('/api/$prefix/getService lists the version’s services without a token', async ({ prefix, version }) => {
    const res = await site.t.rawRequest('GET', `/api/${prefix}/getService`);
    expect(res.status).toBe(200);
    const body = JSON.parse(res.text);
    expect(body).toMatchObject({ type: 'GetServiceResponse', version, status: 'PROCESSED', message: 'Request has been processed.' });
    const names = body.services.map((s: { name: string }) => s.name);
    const expected = [
      ...new Set(
        LEGACY_ROUTES[prefix].map((r) => (/ (get|post)[A-Z]/.test(r) ? r.split(' ')[1] : r.replace('7', '<id>').replace(' ', ' /'))),
      ),
    ];
    expect(names.sort()).toEqual(expected.sort());
    for (const s of body.services) expect(s.description).toEqual(expect.any(String));
    expectDeprecationHeaders(res, prefix);
  });

  it('leaves v3.0 and the shared endpoints without deprecation headers', async () => {
    for (const path of ['/api/v3_0', '/api/']) {
      const res = await site.t.rawRequest('GET', path);
      expect(res.status).toBe(200);
      expect(headerLines(res, 'deprecation')).toEqual([]);
    }
  });
});

describe('sunset legacy versions (the default)', () => {
  it('answers every route of every version with 410 and the headers', async () => {
    const sunset = await startTestServer();
    try {
      for (const [prefix, method, path] of everyRoute) {
        const res = await sunset.rawRequest(method, `/api/${prefix}/${path}`, { Authorization: site.member.token });
        expect(res.status, `${prefix} ${method} ${path}`).toBe(410);
        const version = VERSIONS.find((v) => v.prefix === prefix)!.version;
        expect(JSON.parse(res.text).message).toMatch(new RegExp(`^API version ${version.replace('.', '\\.')} has been sunset\\.`));
        expectDeprecationHeaders(res, prefix);
      }
    } finally {
      await sunset.close();
    }
  });
});
