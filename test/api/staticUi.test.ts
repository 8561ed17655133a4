import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { staticUi } from '../../server/src/http/staticUi.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let dir: string;
let server: http.Server;
let base: string;
let t: TestServer;

beforeAll(async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-ui-'));
  dir = path.join(parent, 'dist');
  fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>UI</title>');
  fs.writeFileSync(path.join(dir, 'assets', 'app-abc123.js'), 'console.log(1)');
  fs.writeFileSync(path.join(parent, 'secret.txt'), 'outside');
  const app = new Koa();
  app.use(staticUi(dir));
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { message: 'not found' };
  });
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await startTestServer();
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  await t.close();
});

const html = { Accept: 'text/html,application/xhtml+xml' };

describe('serving the web UI', () => {
  it('serves built files with their type, hashed assets cached for good', async () => {
    const res = await fetch(`${base}/assets/app-abc123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(res.headers.get('cache-control')).toContain('immutable');
    expect(await res.text()).toBe('console.log(1)');
  });

  it('answers page addresses with index.html, revalidated on every load', async () => {
    for (const p of ['/', '/assets/7', '/sensors/3?range=week']) {
      const res = await fetch(base + p, { headers: html });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(await res.text()).toContain('<title>UI</title>');
    }
  });

  it('leaves /api, other methods and non-HTML requests alone', async () => {
    expect((await fetch(`${base}/api/v3_0/nothing`, { headers: html })).status).toBe(404);
    expect((await fetch(`${base}/api`, { headers: html })).status).toBe(404);
    expect((await fetch(`${base}/missing.js`, { headers: { Accept: 'application/javascript' } })).status).toBe(404);
    expect((await fetch(`${base}/`, { method: 'POST', headers: html })).status).toBe(404);
  });

  it('never serves files outside its folder', async () => {
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/%00', '/%E0%A4%A']) {
      const res = await fetch(base + p, { headers: { Accept: '*/*' } });
      expect(await res.text()).not.toContain('outside');
    }
  });

  it('keeps the JSON 404 of unknown API paths on the real server', async () => {
    const res = await fetch(`${t.url}/api/v3_0/no-such-thing`, { headers: html });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ status: 404 });
  });
});

describe('security headers of the web UI', () => {
  it('forbid inline script, eval and framing, and send no referrer, on pages and files alike', async () => {
    for (const p of ['/', '/assets/app-abc123.js', '/sensors/3']) {
      const res = await fetch(base + p, { headers: html });
      const csp = res.headers.get('content-security-policy') ?? '';
      const scriptSrc = /script-src ([^;]*)/.exec(csp)?.[1] ?? /default-src ([^;]*)/.exec(csp)?.[1];
      expect(scriptSrc, p).toBe("'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("object-src 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('the built index.html carries no inline script', () => {
    const built = path.join(fileURLToPath(new URL('../../renderer/dist', import.meta.url)), 'index.html');
    const page = fs.readFileSync(built, 'utf8');
    for (const tag of page.match(/<script\b[^>]*>/g) ?? []) expect(tag).toMatch(/\ssrc=/);
    expect(page).not.toMatch(/\son[a-z]+=/i);
  });
});
