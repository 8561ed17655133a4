import fs from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import type { Services } from '../../server/src/http/context.ts';
import type { SpecHandler } from '../../server/src/http/routes.ts';
import { openApiDocument } from '../../server/src/routes/openapi.ts';
import { v3Routes } from '../../server/src/routes/v3_0/index.ts';

/**
 * Walks the routers of the real app and checks that every v3.0 and legacy route is declared
 * through a route spec (so it runs the one chain) with a response schema.
 */

const routersOf = (app: ReturnType<typeof createApp>) =>
  app.middleware.flatMap((m) => ((m as { router?: Router }).router ? [(m as unknown as { router: Router }).router] : []));

describe('route specs', () => {
  // Building the app reads nothing but the settings.
  const app = createApp({ config: loadConfig({ FLEXSITE_LEGACY_API: 'serve' }) } as unknown as Services);
  const layers = routersOf(app).flatMap((r) => r.stack.filter((l) => l.methods.length > 0));

  it('cover the v3.0 and the legacy versions', () => {
    const paths = layers.map((l) => String(l.path));
    expect(paths.filter((p) => p.startsWith('/api/v3_0')).length).toBeGreaterThan(40);
    for (const v of ['v1', 'v1_1', 'v1_2', 'v1_3', 'v2_0']) expect(paths.some((p) => p.startsWith(`/api/${v}/`))).toBe(true);
  });

  it.each(layers.map((l) => [`${l.methods.filter((m) => m !== 'HEAD').join(',')} ${l.path}`, l] as const))(
    '%s is declared, with a response schema',
    (_, layer) => {
      const handlers = layer.stack as unknown as Partial<SpecHandler>[];
      expect(handlers).toHaveLength(1);
      const spec = handlers[0].spec;
      expect(spec).toBeDefined();
      expect(spec!.command).toBeTypeOf('function');
      // `null` only for the empty answers: 204s and redirects.
      if (spec!.response.schema === null) expect([204, 308]).toContain(spec!.response.status);
      else expect(spec!.response.schema.safeParse).toBeTypeOf('function');
    },
  );
});

describe('the OpenAPI document', () => {
  const doc = openApiDocument(v3Routes(), '/api/v3_0', 'http://localhost') as {
    paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>>;
  };
  it.each(v3Routes().map((r) => [`${r.method} ${r.path}`, r] as const))('describes the answer of %s', (_, r) => {
    const op = doc.paths[`/api/v3_0${r.path.replace(/:(\w+)/g, '{$1}')}`][r.method.toLowerCase()];
    const status = typeof r.response.status === 'number' ? r.response.status : 200;
    const success = op.responses[status];
    expect(success).toBeDefined();
    if (r.response.schema) expect(success.content).toHaveProperty(['application/json', 'schema']);
    else expect(success.content).toBeUndefined();
  });
});

describe('route modules', () => {
  const dir = path.resolve(import.meta.dirname, '../../server/src/routes');
  const files = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

  // Authentication is the chain's, role checks are policies/', SQL is store/'s.
  it.each(files)('%s leaves authentication, roles and SQL to the chain, policies/ and store/', (file) => {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    expect(text).not.toMatch(
      /requireUser|ctx\.state\.user|\.roles\.(includes|some)|\b(isAdmin|readsEverything|isConsultant)\(|\b(db|trx|probe)(\.raw)?\(['"`]/,
    );
  });
});
