import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { v3Routes } from '../../server/src/routes/v3_0/index.ts';
import { methodNotAllowed, routeNotFound } from '../helpers/bodies.ts';
import { LEGACY_ROUTES, VERSIONS } from '../helpers/legacy.ts';
import { headerLines, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { onSharedBackends } from '../helpers/sharedBackends.ts';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

describe('GET /api/', () => {
  it('lists the versions', async () => {
    const res = await t.request('GET', '/api/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      flexmeasures_version: '0.18.1',
      message:
        'For these API versions a public endpoint is available, listing its service. For example: /api/v3_0. ' +
        'An authentication token can be requested at: /api/requestAuthToken',
      status: 200,
      versions: ['v3_0'],
    });
  });

  it('redirects /api to /api/ permanently, keeping the query', async () => {
    const res = await t.request('GET', '/api?x=1');
    expect(res.status).toBe(308);
    expect(res.headers.get('location')).toBe(`${t.url}/api/?x=1`);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('GET /api/ops/ping', () => {
  it('answers ok without authentication', async () => {
    const res = await t.request('GET', '/api/ops/ping');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'ok', status: 200 });
  });
});

describe('GET /api/v3_0 (service listing)', () => {
  it('has the envelope of the reference, entries sorted by url', async () => {
    const res = await t.request('GET', '/api/v3_0');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Request has been processed.', services: expect.any(Array), status: 'PROCESSED', version: '3.0' });
    const urls = res.body.services.map((s: { url: string }) => s.url);
    expect(urls).toEqual([...urls].sort());
  });

  it('lists the endpoints with the descriptions of the reference', async () => {
    const { body } = await t.request('GET', '/api/v3_0');
    const entry = (name: string, description: string) => ({
      description,
      name,
      url: `${t.url}/api/v3_0${name.slice(name.indexOf(' ') + 1)}`,
    });
    const expected = [
      entry('GET ', 'Obtain a service listing for this version'),
      entry('GET /health/ready', 'Get readiness status'),
      entry('GET /sensors', 'Download sensor list'),
      entry('POST /sensors', 'Create a new Sensor'),
      entry('GET /sensors/<id>', 'Get a sensor'),
      entry('PATCH /sensors/<id>', 'Update a sensor'),
      entry('DELETE /sensors/<id>', 'Delete a sensor'),
      entry('GET /assets', 'Download asset list'),
      entry('GET /assets/public', 'Return all public assets.'),
      entry('POST /assets', 'Create a new asset'),
      entry('GET /assets/<id>', 'Get an asset'),
      entry('PATCH /assets/<id>', 'Update an asset'),
      entry('DELETE /assets/<id>', 'Delete an asset'),
      entry('GET /assets/types', 'Get list of available asset types'),
      entry('GET /users', 'Download user list'),
      entry('GET /users/<id>', 'Get a user'),
      entry('PATCH /users/<id>', 'Patch data for an existing user'),
      entry('PATCH /users/<id>/password-reset', 'Password reset'),
      entry('GET /accounts', 'Download account list'),
      entry('GET /accounts/<id>', 'Get an account'),
      entry('GET /openapi.json', 'OpenAPI 3.1 description of this API'),
    ];
    for (const e of expected) expect(body.services).toContainEqual(e);
  });

  it('is built from the real routes: every entry is served, every route is listed', async () => {
    const { body } = await t.request('GET', '/api/v3_0');
    const names = body.services.map((s: { name: string }) => s.name);
    expect(names).toHaveLength(new Set(names).size);
    const routes = v3Routes().map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '<$1>')}`);
    expect([...names].sort()).toEqual([...routes].sort());
    for (const s of body.services as { name: string; url: string }[]) {
      const method = s.name.split(' ')[0];
      const path = new URL(s.url.replace(/<\w+>/g, '1')).pathname;
      // Anonymous calls: a route that exists answers 401 (or its own answer), never the routing 404/405.
      const res = await t.request(method, path, method === 'GET' ? {} : { json: {} });
      expect(res.status, s.name).not.toBe(405);
      expect(res.status, s.name).toBeLessThan(500);
      if (res.status === 404) expect(res.body, s.name).not.toEqual(routeNotFound);
    }
  });
});

describe('GET /api/v3_0/health/ready', () => {
  // With jobs on BullMQ the queue's Redis is a dependency too.
  const redis = (up: boolean) => (onSharedBackends ? { database_redis: up } : {});

  it('reports the SQL store (and the Redis of the queue) as ready', async () => {
    const res = await t.request('GET', '/api/v3_0/health/ready');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ database_sql: true, ...redis(true), status: 200 });
  });

  it('answers 503 when the store cannot be reached', async () => {
    const broken = await startTestServer();
    try {
      await broken.server.services.probe.destroy();
      const res = await broken.request('GET', '/api/v3_0/health/ready');
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({ database_sql: false, ...redis(true), status: 503 });
    } finally {
      await broken.close();
    }
  });
});

describe('GET /api/v3_0/openapi.json', () => {
  it('is an OpenAPI 3.1 document with every route and its request schemas', async () => {
    const res = await t.request('GET', '/api/v3_0/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toEqual(expect.objectContaining({ title: expect.any(String), version: '3.0' }));
    expect(doc.servers).toEqual([{ url: t.url }]);
    expect(doc.components.securitySchemes.token).toEqual({ type: 'apiKey', in: 'header', name: 'Authorization' });
    for (const route of v3Routes()) {
      const path = '/api/v3_0' + route.path.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${path}`).toBeDefined();
      expect(op.summary).toBe(route.summary);
      expect(op.security, `${route.method} ${path}`).toEqual(route.public ? [] : undefined);
      const params = (op.parameters ?? []) as { name: string; in: string; required: boolean }[];
      for (const name of route.path.match(/:(\w+)/g) ?? []) {
        expect(params).toContainEqual(expect.objectContaining({ name: name.slice(1), in: 'path', required: true }));
      }
      if (route.request?.json) {
        const body = op.requestBody.content['application/json'].schema as { oneOf?: unknown[] };
        // A body with variants (e.g. an MQTT link's direction) is a choice of objects.
        for (const variant of body.oneOf ?? [body]) expect(variant, `${route.method} ${path}`).toMatchObject({ type: 'object' });
      } else if (!route.request?.multipart) {
        expect(op.requestBody, `${route.method} ${path}`).toBeUndefined();
      }
    }
    const operations = Object.values(doc.paths as Record<string, object>).flatMap((p) => Object.keys(p));
    expect(operations).toHaveLength(v3Routes().length);
  });

  it('describes the bodies the server validates', async () => {
    const { body: doc } = await t.request('GET', '/api/v3_0/openapi.json');
    const bodyOf = (path: string, method: string) => doc.paths[path][method].requestBody.content['application/json'].schema;
    const sensorCreate = bodyOf('/api/v3_0/sensors', 'post');
    expect(Object.keys(sensorCreate.properties).sort()).toEqual(
      ['attributes', 'event_resolution', 'generic_asset_id', 'name', 'timezone', 'unit'].sort(),
    );
    expect([...sensorCreate.required].sort()).toEqual(['event_resolution', 'generic_asset_id', 'name', 'unit']);
    expect(sensorCreate.additionalProperties).toBe(false);
    expect(sensorCreate.properties.event_resolution).toMatchObject({ type: 'string', format: 'duration' });
    const sensorPatch = bodyOf('/api/v3_0/sensors/{id}', 'patch');
    expect(Object.keys(sensorPatch.properties).sort()).toEqual(['attributes', 'event_resolution', 'name', 'timezone', 'unit']);
    expect(sensorPatch.required).toBeUndefined();
    const assetCreate = bodyOf('/api/v3_0/assets', 'post');
    expect(assetCreate.properties).toHaveProperty('account_id');
    expect([...assetCreate.required].sort()).toEqual(['generic_asset_type_id', 'name']);
    expect(bodyOf('/api/v3_0/assets/{id}', 'patch').properties).not.toHaveProperty('account_id');
    const userPatch = bodyOf('/api/v3_0/users/{id}', 'patch');
    expect(userPatch.properties).toHaveProperty('flexmeasures_roles');
    expect(userPatch.properties).not.toHaveProperty('password');
    const userList = doc.paths['/api/v3_0/users'].get.parameters;
    expect(userList.map((p: { name: string; in: string }) => `${p.in}:${p.name}`).sort()).toEqual([
      'query:account',
      'query:account_id',
      'query:filter',
      'query:include_inactive',
      // FlexMeasures 1.0's paging and sorting, in both of its spellings.
      'query:page',
      'query:per-page',
      'query:per_page',
      'query:sort-by',
      'query:sort-dir',
      'query:sort_by',
      'query:sort_dir',
    ]);
    // Parameters show the typed value a client sends, though the server also parses it from text.
    expect(userList.find((p: { name: string }) => p.name === 'include_inactive').schema).toEqual({ type: 'boolean' });
    expect(userList.find((p: { name: string }) => p.name === 'account_id').schema).toMatchObject({ type: 'integer' });
    for (const path of ['/api/v3_0/assets/{id}', '/api/v3_0/sensors/{id}', '/api/v3_0/users/{id}', '/api/v3_0/accounts/{id}']) {
      expect(doc.paths[path].get.parameters, path).toEqual([
        { name: 'id', in: 'path', required: true, schema: expect.objectContaining({ type: 'integer' }) },
      ]);
    }
  });
});

describe('sunset API versions', () => {
  const docs = 'https://flexmeasures.readthedocs.io/en/v0.13.0/api';
  const cases = VERSIONS.flatMap((v) => LEGACY_ROUTES[v.prefix].map((r) => [v.prefix, v.version, ...r.split(' ')] as const));

  it.each(cases)('/api/%s (%s): %s %s answers 410 with the deprecation headers', async (prefix, version, method, route) => {
    const res = await t.rawRequest(
      method,
      `/api/${prefix}/${route}`,
      { 'Content-Type': 'application/json' },
      method === 'GET' ? undefined : '{}',
    );
    expect(res.status).toBe(410);
    expect(JSON.parse(res.text)).toEqual({
      message: `API version ${version} has been sunset. Please upgrade to API version 3.0. See ${docs}/${prefix}.html for more information.`,
      status: 410,
    });
    expect(headerLines(res, 'content-type')).toEqual([expect.stringMatching(/^application\/json/)]);
    expect(headerLines(res, 'deprecation')).toEqual(['Tue, 13 Dec 2022 23:59:59 GMT']);
    expect(headerLines(res, 'sunset')).toEqual(['Sun, 30 Apr 2023 23:59:59 GMT']);
    expect(headerLines(res, 'link')).toEqual([
      '<https://flexmeasures.readthedocs.io/en/latest/api/introduction.html#deprecation-and-sunset>; rel="deprecation"; type="text/html"',
      `<${docs}/${prefix}.html>; rel="sunset"; type="text/html"`,
    ]);
  });

  it.each(VERSIONS.map((v) => v.prefix))(
    '/api/%s: unknown routes are 404, wrong methods 405, without deprecation headers',
    async (prefix) => {
      const missing = await t.rawRequest('GET', `/api/${prefix}/getSomethingElse`);
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.text)).toEqual(routeNotFound);
      expect(headerLines(missing, 'deprecation')).toEqual([]);
      const wrong = await t.rawRequest('DELETE', `/api/${prefix}/getService`);
      expect(wrong.status).toBe(405);
      expect(JSON.parse(wrong.text)).toEqual(methodNotAllowed);
      expect(headerLines(wrong, 'deprecation')).toEqual([]);
      expect(headerLines(wrong, 'link')).toEqual([]);
    },
  );

  it('uses the configured sunset date and link', async () => {
    const custom = await startTestServer({
      FLEXSITE_API_SUNSET_DATE: 'Mon, 01 Jan 2024 00:00:00 GMT',
      FLEXSITE_API_SUNSET_LINK: 'https://example.com/sunset',
    });
    try {
      const res = await custom.rawRequest('GET', '/api/v1_1/getService');
      expect(res.status).toBe(410);
      expect(JSON.parse(res.text).message).toBe(
        'API version 1.1 has been sunset. Please upgrade to API version 3.0. See https://example.com/sunset for more information.',
      );
      expect(headerLines(res, 'sunset')).toEqual(['Mon, 01 Jan 2024 00:00:00 GMT']);
      expect(headerLines(res, 'link')[1]).toBe('<https://example.com/sunset>; rel="sunset"; type="text/html"');
    } finally {
      await custom.close();
    }
  });
});

describe('routing errors', () => {
  it('answers unknown API paths with the JSON 404', async () => {
    for (const path of ['/api/v3_0/nothing', '/api/v3_0/sensors/', '/api/v3_0/assets/1/', '/api/v4_0/sensors', '/api/nope']) {
      const res = await t.request('GET', path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get('content-type'), path).toMatch(/^application\/json/);
      expect(res.body, path).toEqual(routeNotFound);
    }
  });

  it('answers a wrong method with the JSON 405', async () => {
    for (const [method, path] of [
      ['DELETE', '/api/v3_0/sensors'],
      ['PUT', '/api/v3_0/assets/1'],
      ['POST', '/api/v3_0/users/1'],
      ['PATCH', '/api/v3_0/accounts'],
      ['POST', '/api/'],
      ['GET', '/api/requestAuthToken'],
    ]) {
      const res = await t.request(method, path);
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual(methodNotAllowed);
    }
  });

  it('answers OPTIONS with the allowed methods, typed as JSON', async () => {
    const res = await t.rawRequest('OPTIONS', '/api/v3_0/sensors');
    expect(res.status).toBe(200);
    expect(headerLines(res, 'allow')[0].split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    expect(headerLines(res, 'content-type')).toEqual([expect.stringMatching(/^application\/json/)]);
  });

  it('answers an unknown verb with a JSON 501', async () => {
    const res = await t.rawRequest('PROPFIND', '/api/v3_0/sensors');
    expect(res.status).toBe(501);
    expect(JSON.parse(res.text)).toEqual({ message: 'The server does not support the action requested by the browser.', status: 501 });
  });
});
