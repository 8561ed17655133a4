import Router from '@koa/router';
import type { Knex } from 'knex';
import type { z } from 'zod';
import type { CommandContext } from '../commands/context.ts';
import { AppError, forbidden, httpError, type Location } from '../errors.ts';
import { authorize, type AccessContext, type Permission } from '../policies/access.ts';
import { authorizeReferences, type AccountReferences, type Reference } from '../policies/references.ts';
import { userPrincipal, type Principal } from '../policies/principal.ts';
import { mayOnUnowned } from '../policies/roles.ts';
import type { User } from '../store/users.ts';
import { requireUser } from './auth.ts';
import type { AppContext } from './context.ts';
import { parseInput } from '../contracts/validate.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Something a route loads, with the permission the caller needs on it. */
export interface Loaded<T> {
  value: T;
  permission: Permission;
  /** Whose it is; null for records of no account (system jobs). */
  on: AccessContext | null;
}

type LoadResult = Record<string, Loaded<unknown> | Loaded<unknown>[] | undefined>;
type Values<L> = {
  [K in keyof L]: L[K] extends Loaded<infer T>[]
    ? T[]
    : L[K] extends Loaded<infer T>
      ? T
      : L[K] extends Loaded<infer T> | undefined
        ? T | undefined
        : never;
};

/** The validated request. */
export interface Input<P, Q, B> {
  params: P;
  query: Q;
  body: B;
}

/** What each step after validation receives; `user` is undefined only on public routes. */
export interface Call<P, Q, B, U extends User | undefined = User, DB extends Knex = Knex> extends Input<P, Q, B> {
  ctx: AppContext;
  user: U;
  /** Who the request acts as: its user, whom the chain hands to the commands. */
  principal: U extends User ? Principal : undefined;
  /** The store; the route's transaction in its command when it runs in one. */
  db: DB;
  /** What the commands reach, with `db` as above. */
  context: CommandContext<DB>;
  /** Where the query was read from, for 422s found after validation. */
  queryLocation: Location;
}

/**
 * A body read by the route's own reader instead of a schema: the legacy message API answers each
 * problem with a status name of its own rather than with field messages. The reader runs in the
 * validation step, so its problems keep their place in the chain.
 */
export interface MessageBody<M> {
  readMessage: (ctx: AppContext) => M;
}

/** Declares a body read by `readMessage` (see {@link MessageBody}). */
export const messageBody = <M>(readMessage: (ctx: AppContext) => M): MessageBody<M> => ({ readMessage });

const isMessageBody = (body: z.ZodType | MessageBody<unknown>): body is MessageBody<unknown> => 'readMessage' in body;

/** The body schema of a route, when it declares one (not a message reader). */
export const bodySchema = (spec: RouteSpec): z.ZodType | undefined => {
  const json = spec.request?.json as z.ZodType | MessageBody<unknown> | undefined;
  return json && !isMessageBody(json) ? json : undefined;
};

type Out<S> = S extends z.ZodType ? z.output<S> : S extends MessageBody<infer M> ? M : undefined;

/**
 * One endpoint, declared: `mount` runs every route through the same chain (see there).
 * Routes hold only their command; loading, authorizing, transactions and presenting are named here.
 */
export interface RouteDef<PS, QS, BS, L extends LoadResult, R, U extends User | undefined, T extends boolean = boolean, C = void> {
  method: Method;
  /** Koa-style path relative to the router prefix, e.g. `/assets/:id`. */
  path: string;
  /** One line for the service listing and the OpenAPI summary. */
  summary: string;
  /** Authentication: public endpoints (declared with `publicRoute`) skip it and their calls carry no user. */
  public?: U extends User ? false : true;
  request?: {
    params?: PS;
    query?: QS;
    /** The JSON body's schema, or a `messageBody` reader for legacy messages. */
    json?: BS;
    multipart?: boolean;
    /** The 422 location of query problems (the reference says `args_and_json` on some endpoints). */
    queryLocation?: Location;
    /** Where the query schema's input is read from when not the query string (a GET's JSON body). */
    queryInput?: (ctx: AppContext) => Promise<{ data: unknown; location: Location }>;
  };
  /** A policy on the caller alone that the reference checks before reading any input (403). */
  guard?: (call: { ctx: AppContext; user: U }) => Promise<void> | void;
  /** What the route works on, each with its permission; unknown things are a 404 or 422 here. */
  load?: (call: Call<Out<PS>, Out<QS>, Out<BS>, U>) => Promise<L>;
  /**
   * Input checks that need what was loaded (422), made once the caller may use it; what they
   * return (e.g. the parsed upload, the resolved job) is the command's `checked`.
   */
  check?: (call: Call<Out<PS>, Out<QS>, Out<BS>, U> & { loaded: Values<L> }) => Promise<C> | C;
  /**
   * The sensors and assets named inside the input (flex-models, flex-contexts, device lists) with
   * their use, authorized by policies/ together with the loaded things (422 for unknown ids); with
   * `usableBy`, the asset's account whose stored configuration or job they end up in must be able
   * to use them too.
   */
  references?: (
    call: Call<Out<PS>, Out<QS>, Out<BS>, U> & { loaded: Values<L>; checked: C },
  ) => Promise<Reference[] | AccountReferences> | Reference[] | AccountReferences;
  /** Whether the command runs in one store transaction (every write does). */
  transaction?: T;
  command: (
    call: Call<Out<PS>, Out<QS>, Out<BS>, U, T extends true ? Knex.Transaction : Knex> & { loaded: Values<L>; checked: C },
  ) => Promise<R>;
  response: {
    /** The success status; a function when the result decides (readiness: 200 or 503). */
    status?: number | ((result: R) => number);
    /** The body's schema; `null` for an empty answer (204, redirects). */
    schema: z.ZodType | null;
    /** Turns the command's result into the body; without it the result is the body. */
    present?: (result: R, ctx: AppContext) => unknown;
    description?: string;
  };
}

/** A route with its types erased, as routers and the OpenAPI generator see it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type RouteSpec = RouteDef<any, any, any, any, any, any, any, any>;

/**
 * A route declarer: the types of the route's input, loads and result follow from its schemas.
 * @typeParam U the caller: a user, or undefined on public routes.
 * @typeParam Given the fields the declarer fills in itself rather than the declaration.
 * @typeParam Spec what it returns.
 */
type Declarer<U extends User | undefined, Given extends keyof RouteDef<never, never, never, never, never, U>, Spec> = <
  PS extends z.ZodType | undefined = undefined,
  QS extends z.ZodType | undefined = undefined,
  BS extends z.ZodType | MessageBody<unknown> | undefined = undefined,
  L extends LoadResult = Record<never, never>,
  R = unknown,
  T extends boolean = false,
  C = void,
>(
  def: Omit<RouteDef<PS, QS, BS, L, R, U, T, C>, Given>,
) => Spec;

/** Declares a route, typed for `mount`. */
export const route: Declarer<User, never, RouteSpec> = (def) => def as RouteSpec;

/** A route declared without its method and path, for routers that place endpoints by a table (the legacy versions). */
export type PlacedLater = Omit<RouteSpec, 'method' | 'path'>;

/** Declares a route whose method and path a table gives later; typed as `route` is. */
export const unplacedRoute: Declarer<User, 'method' | 'path', PlacedLater> = (def) => def as PlacedLater;

/** Declares a route that answers without authentication (`route` for the rest). */
export const publicRoute: Declarer<undefined, 'public', RouteSpec> = (def) => ({ ...def, public: true }) as RouteSpec;

/** Whether answers are checked against their response schemas: under tests and in development. */
const checkResponses = process.env.NODE_ENV === 'test' || process.env.NODE_ENV === 'development';

/**
 * Runs one request through the chain. The order is the same for every route, and it keeps the
 * reference's error precedence (401, then 422 for malformed input, then 404 / 403):
 *  1. authenticate (401), unless the route is public;
 *  2. guard: a policy on the caller alone, for the few endpoints that check it first (403);
 *  3. validate path, query, then body against the request schemas (422);
 *  4. load what the request names (404, or 422 for an unknown id inside the input);
 *  5. authorize every loaded thing for its permission through policies/ (403), so nothing of
 *     another account is read further before this;
 *  6. check the input against what was loaded (422), e.g. units, resolved flex configuration;
 *  7. authorize the sensors and assets named inside the input (flex-models, device lists) for
 *     their use through policies/ (422 for an unknown id, 403);
 *  8. the command, inside one transaction when the route declares one (it may still refuse: 4xx);
 *  9. present the result as the response schema says (checked against it under tests).
 */
export async function runChain(spec: RouteSpec, ctx: AppContext): Promise<void> {
  const user = spec.public ? undefined : await requireUser(ctx);
  if (spec.guard) await spec.guard({ ctx, user });
  const req = spec.request ?? {};
  const params = req.params ? parseInput(req.params, ctx.params, 'path') : undefined;
  let query;
  let queryLocation: Location = req.queryLocation ?? 'query';
  if (req.query) {
    const input = req.queryInput ? await req.queryInput(ctx) : { data: ctx.query, location: queryLocation };
    queryLocation = input.location;
    query = parseInput(req.query, input.data, queryLocation);
  }
  const json = req.json as z.ZodType | MessageBody<unknown> | undefined;
  const body = json ? (isMessageBody(json) ? json.readMessage(ctx) : parseInput(json, ctx.request.body, 'json')) : undefined;
  const { db, reader } = ctx.services;
  const principal = user && userPrincipal(user);
  const context = commandContext(ctx, db);
  const call = {
    ctx,
    user,
    principal,
    params,
    query,
    body,
    db,
    context,
    queryLocation,
    loaded: {} as Record<string, unknown>,
    checked: undefined as unknown,
  };
  // Loads and checks only read: they use the reading connections, which never wait for a write.
  const reading = { ...call, db: reader, context: commandContext(ctx, reader) };
  const needs: Loaded<unknown>[] = [];
  for (const [key, loaded] of Object.entries(spec.load ? ((await spec.load(reading)) as LoadResult) : {})) {
    const list = Array.isArray(loaded) ? loaded : loaded ? [loaded] : [];
    call.loaded[key] = Array.isArray(loaded) ? list.map((l) => l.value) : loaded?.value;
    needs.push(...list);
  }
  for (const { permission, on } of needs) {
    if (on) authorize(user!, permission, on);
    else if (!mayOnUnowned(user!, permission)) throw forbidden();
  }
  if (spec.check) call.checked = reading.checked = await spec.check(reading);
  if (spec.references) {
    const named = await spec.references(reading);
    const { refs, usableBy } = Array.isArray(named) ? { refs: named, usableBy: undefined } : named;
    await authorizeReferences(reader, user!, refs, [], usableBy);
  }
  const result = spec.transaction
    ? await db.transaction((trx) => spec.command({ ...call, db: trx, context: commandContext(ctx, trx) }))
    : await spec.command(call);
  const status = typeof spec.response.status === 'function' ? spec.response.status(result) : spec.response.status;
  if (spec.response.schema === null) {
    if (status) ctx.status = status;
    return;
  }
  const answer = spec.response.present ? spec.response.present(result, ctx) : result;
  if (checkResponses) {
    const parsed = spec.response.schema.safeParse(answer);
    if (!parsed.success) {
      throw new AppError(500, {
        message: `Response of ${spec.method} ${spec.path} breaks its contract: ${parsed.error.message}`,
        status: 500,
      });
    }
  }
  ctx.status = status ?? 200;
  ctx.body = answer;
}

/** The commands' context of a request, over the given store (its transaction, or the reading connections). */
function commandContext<DB extends Knex>(ctx: AppContext, db: DB): CommandContext<DB> {
  const { reader, config, clock, jobs, passwords, schedulerPlugins } = ctx.services;
  return { db, reader, config, clock, jobs, hash: passwords.hash, schedulerPlugins };
}

/** The handler `mount` gives a route; it carries its spec, so the router itself tells what it serves. */
export type SpecHandler = ((ctx: unknown) => Promise<void>) & { spec: RouteSpec };

/**
 * Mounts route specs on a router; every request runs through `runChain`.
 * @param router the router to extend.
 * @param specs the endpoints.
 * @param prefix a path prefix inside the router, e.g. `/v3_0`.
 */
export function mount(router: Router, specs: RouteSpec[], prefix = ''): void {
  for (const spec of specs) {
    const verb = spec.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const handler: SpecHandler = Object.assign((ctx: unknown) => runChain(spec, ctx as AppContext), { spec });
    router[verb](prefix + spec.path, handler);
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
