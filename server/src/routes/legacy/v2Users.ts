import { forbidden } from '../../errors.ts';
import type { AppContext } from '../../http/context.ts';
import type { Method } from '../../http/routes.ts';
import { PROCESSED } from '../sensorUploads.ts';
import { loadUser } from '../v3_0/load.ts';
import { userRoutes } from '../v3_0/users.ts';
import { readPathId } from './message.ts';

/**
 * Version 2.0's users: the v3.0 endpoints (its later revision's rules: same-account reads,
 * `account_id`), with 2.0's own field set, and patches and password resets only by the user
 * themselves or an admin.
 */

const FIELDS = ['id', 'email', 'username', 'active', 'account_id', 'timezone', 'flexmeasures_roles'];

const presentUser = (user: unknown) => Object.fromEntries(FIELDS.map((f) => [f, (user as Record<string, unknown>)[f]]));

/** The v3.0 handler that does the work. */
function v3(method: Method, path: string): (ctx: AppContext) => Promise<void> {
  const route = userRoutes.find((r) => r.method === method && r.path === path);
  if (!route) throw new Error(`No v3.0 route ${method} ${path}`);
  return route.handler;
}

const v3List = v3('GET', '/users');
const v3Get = v3('GET', '/users/:id');
const v3Patch = v3('PATCH', '/users/:id');
const v3Reset = v3('PATCH', '/users/:id/password-reset');

/** Only the user themselves and admins change a user in version 2.0. */
async function checkSelfOrAdmin(ctx: AppContext): Promise<void> {
  const user = await loadUser(ctx, readPathId(ctx, 'user'));
  const me = ctx.state.user!;
  if (me.id !== user.id && !me.roles.includes('admin')) throw forbidden();
}

async function listUsers(ctx: AppContext): Promise<void> {
  await v3List(ctx);
  ctx.body = (ctx.body as unknown[]).map(presentUser);
}

async function getUser(ctx: AppContext): Promise<void> {
  readPathId(ctx, 'user');
  await v3Get(ctx);
  ctx.body = presentUser(ctx.body);
}

async function patchUser(ctx: AppContext): Promise<void> {
  await checkSelfOrAdmin(ctx);
  const body: unknown = ctx.request.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    // Version 2.0 ignores these instead of refusing them.
    const { id: _id, account_id: _account, ...rest } = body as Record<string, unknown>;
    ctx.request.body = rest;
  }
  await v3Patch(ctx);
  ctx.body = presentUser(ctx.body);
}

async function resetPassword(ctx: AppContext): Promise<void> {
  await checkSelfOrAdmin(ctx);
  await v3Reset(ctx);
  ctx.body = PROCESSED;
}

/** The 2.0 user endpoints, by method and route. */
export const v2UserEndpoints = {
  'GET users': listUsers,
  'GET user/:id': getUser,
  'PATCH user/:id': patchUser,
  'PATCH user/:id/password-reset': resetPassword,
};
