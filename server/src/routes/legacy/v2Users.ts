import { z } from 'zod';
import * as wire from '../../contracts/responses.ts';
import { notFound } from '../../errors.ts';
import type { AppContext } from '../../http/context.ts';
import { runChain, unplacedRoute, type Loaded, type Method } from '../../http/routes.ts';
import { getUser as findUser, type User } from '../../store/users.ts';
import { PROCESSED } from '../sensorUploads.ts';
import { userRoutes } from '../v3_0/users.ts';
import { readPathId } from './message.ts';

/**
 * Version 2.0's users: the v3.0 endpoints (its later revision's rules: same-account reads,
 * `account_id`), run through their own chain, with 2.0's own field set, and patches and password
 * resets only by the user themselves or an admin.
 */

const FIELDS = ['id', 'email', 'username', 'active', 'account_id', 'timezone', 'flexmeasures_roles'];

const presentUser = (user: unknown) => Object.fromEntries(FIELDS.map((f) => [f, (user as Record<string, unknown>)[f]]));

/** Runs the v3.0 endpoint that does the work; its answer is left in `ctx.body`. */
function v3(method: Method, path: string): (ctx: AppContext) => Promise<unknown> {
  const route = userRoutes.find((r) => r.method === method && r.path === path);
  if (!route) throw new Error(`No v3.0 route ${method} ${path}`);
  return async (ctx) => {
    await runChain(route, ctx);
    return ctx.body;
  };
}

const v3List = v3('GET', '/users');
const v3Get = v3('GET', '/users/:id');
const v3Patch = v3('PATCH', '/users/:id');
const v3Reset = v3('PATCH', '/users/:id/password-reset');

/** The user of the path, which version 2.0 lets only the user themselves (and admins) change. */
async function userToChange(ctx: AppContext): Promise<Loaded<User>> {
  const id = readPathId(ctx, 'user');
  const user = await findUser(ctx.services.reader, id);
  if (!user) throw notFound(`User ${id} not found`);
  return { value: user, permission: 'update', on: { kind: 'v2-user', id: user.id } };
}

/** The 2.0 user endpoints, by method and route. */
export const v2UserEndpoints = {
  'GET users': () =>
    unplacedRoute({
      summary: 'List users',
      command: async ({ ctx }) => ((await v3List(ctx)) as unknown[]).map(presentUser),
      response: { schema: z.array(wire.v2User) },
    }),
  'GET user/:id': () =>
    unplacedRoute({
      summary: 'Get a user',
      command: async ({ ctx }) => {
        readPathId(ctx, 'user');
        return presentUser(await v3Get(ctx));
      },
      response: { schema: wire.v2User },
    }),
  'PATCH user/:id': () =>
    unplacedRoute({
      summary: 'Update a user',
      load: async ({ ctx }) => ({ user: await userToChange(ctx) }),
      command: async ({ ctx }) => {
        const body: unknown = ctx.request.body;
        if (body && typeof body === 'object' && !Array.isArray(body)) {
          // Version 2.0 ignores these instead of refusing them.
          const { id: _id, account_id: _account, ...rest } = body as Record<string, unknown>;
          ctx.request.body = rest;
        }
        return presentUser(await v3Patch(ctx));
      },
      response: { schema: wire.v2User },
    }),
  'PATCH user/:id/password-reset': () =>
    unplacedRoute({
      summary: "Reset a user's password",
      load: async ({ ctx }) => ({ user: await userToChange(ctx) }),
      command: async ({ ctx }) => {
        await v3Reset(ctx);
        return PROCESSED;
      },
      response: { schema: wire.processedAnswer },
    }),
};
