import Router from '@koa/router';
import type { z } from 'zod';
import { httpError } from '../errors.ts';
import { requireUser } from './auth.ts';
import type { AppContext } from './context.ts';

export type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * One endpoint. Handlers validate their inputs themselves with `parseInput`, because the
 * reference checks body, path and permissions in an order that differs per endpoint; the
 * schemas named in `request` are the same objects, so the OpenAPI description cannot drift.
 */
export interface RouteSpec {
  method: Method;
  /** Koa-style path relative to the router prefix, e.g. `/assets/:id`. */
  path: string;
  /** One line for the service listing and the OpenAPI summary. */
  summary: string;
  /** Public endpoints skip authentication. */
  public?: boolean;
  request?: { json?: z.ZodType; query?: z.ZodType; params?: z.ZodType; multipart?: boolean };
  /** Success status and a short description of the response, for OpenAPI. */
  responses?: Record<number, string>;
  handler: (ctx: AppContext) => Promise<void>;
}

/**
 * Mounts route specs on a router, authenticating every non-public one first.
 * @param router the router to extend.
 * @param specs the endpoints.
 * @param prefix a path prefix inside the router, e.g. `/v3_0`.
 */
export function mount(router: Router, specs: RouteSpec[], prefix = ''): void {
  for (const spec of specs) {
    const verb = spec.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
    router[verb](prefix + spec.path, async (ctx) => {
      const appCtx = ctx as unknown as AppContext;
      if (!spec.public) await requireUser(appCtx);
      await spec.handler(appCtx);
    });
  }
}

/**
 * Answers 405 for a known path asked with the wrong method, 501 for an unknown verb, and
 * OPTIONS with the `Allow` header.
 * @param router the router whose paths are known.
 * @param methodNotAllowed the 405 answer; by default the Werkzeug-style one.
 */
export function allowedMethods(
  router: Router,
  methodNotAllowed = () => httpError(405, 'The method is not allowed for the requested URL.'),
): ReturnType<Router['allowedMethods']> {
  const answer = router.allowedMethods({
    throw: true,
    methodNotAllowed,
    notImplemented: () => httpError(501, 'The server does not support the action requested by the browser.'),
  });
  return async (ctx, next) => {
    await answer(ctx, next);
    // The router answers OPTIONS with an empty text body; clients decode every answer as JSON.
    if (ctx.method === 'OPTIONS' && ctx.response.get('Allow')) ctx.type = 'application/json';
  };
}
