import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type Koa from 'koa';

/**
 * Where `vite build` writes the web UI: `renderer/dist` at the project root, which is one folder
 * above the bundled server of the desktop app (`dist/server.js`), else three above this file.
 */
const bundledUiDir = fileURLToPath(new URL('../renderer/dist', import.meta.url));
export const defaultUiDir = fs.existsSync(bundledUiDir) ? bundledUiDir : fileURLToPath(new URL('../../../renderer/dist', import.meta.url));

const notBuilt =
  '<!doctype html><meta charset="utf-8"><title>Flexsite</title>' +
  '<p>The web UI has not been built. Run <code>npm run build</code> (or <code>npm start</code>, which builds it) and reload.</p>';

/**
 * Headers of every UI answer. Scripts come only from the UI's own files (no inline script, no
 * eval: charts run Vega's expression interpreter); styles may be inline because Vega's
 * tooltips and charts set them. No site may frame the UI (clickjacking), and no address of it
 * leaks to other sites as a referrer.
 */
export const uiSecurityHeaders: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Serves the built web UI at `/`: its files, and `index.html` for any other page address a
 * browser asks for (the UI routes in the browser). Everything under `/api` is left to the API,
 * so unknown API paths keep their JSON 404.
 * @param uiDir the folder holding `index.html` and `assets/`.
 * @returns the middleware.
 */
export function staticUi(uiDir: string): Koa.Middleware {
  const root = path.resolve(uiDir);
  const index = path.join(root, 'index.html');
  return async (ctx, next) => {
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path === '/api' || ctx.path.startsWith('/api/')) {
      return next();
    }
    ctx.set(uiSecurityHeaders);
    const file = resolveInside(root, ctx.path);
    if (file && (await isFile(file))) {
      // Hashed bundle names never change content; index.html must be revalidated to pick up a new build.
      ctx.set('Cache-Control', file.startsWith(path.join(root, 'assets') + path.sep) ? 'public, max-age=31536000, immutable' : 'no-cache');
      return send(ctx, file);
    }
    if (ctx.accepts('html') !== 'html') return next();
    if (!(await isFile(index))) {
      ctx.status = 503;
      ctx.type = 'html';
      ctx.body = notBuilt;
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    return send(ctx, index);
  };
}

/** The file a URL path names inside root, or undefined when the path is malformed or escapes root. */
function resolveInside(root: string, urlPath: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const file = path.resolve(root, '.' + decoded);
  return file.startsWith(root + path.sep) ? file : undefined;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await fs.promises.stat(file)).isFile();
  } catch {
    return false;
  }
}

function send(ctx: Koa.Context, file: string): void {
  ctx.type = path.extname(file);
  ctx.body = fs.createReadStream(file);
}
