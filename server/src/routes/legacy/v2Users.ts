import { runChain, type Method } from '../../http/routes.ts';
import { isAdmin } from '../../policies/roles.ts';
import { getUser as findUser } from '../../store/users.ts';
import { forbidden, notFound } from '../../errors.ts';
import { PROCESSED } from '../sensorUploads.ts';
import { userRoutes } from '../v3_0/users.ts';
import { readPathId, type LegacyCall } from './message.ts';

/**
 * Version 2.0's users: the v3.0 endpoints (its later revision's rules: same-account reads,
 * `account_id`), run through their own chain, with 2.0's own field set, and patches and password
 * resets only by the user themselves or an admin.
 */

const FIELDS = ['id', 'email', 'username', 'active', 'account_id', 'timezone', 'flexmeasures_roles'];

const presentUser = (user: unknown) => Object.fromEntries(FIELDS.map((f) => [f, (user as Record<string, unknown>)[f]]));

/** Runs the v3.0 endpoint that does the work; its answer is left in `ctx.body`. */
function v3(method: Method, path: string): (call: LegacyCall) => Promise<unknown> {
  const route = userRoutes.find((r) => r.method === method && r.path === path);
  if (!route) throw new Error(`No v3.0 route ${method} ${path}`);
  return async ({ ctx }) => {
    await runChain(route, ctx);
    return ctx.body;
  };
}

const v3List = v3('GET', '/users');
const v3Get = v3('GET', '/users/:id');
const v3Patch = v3('PATCH', '/users/:id');
const v3Reset = v3('PATCH', '/users/:id/password-reset');

/** Only the user themselves and admins change a user in version 2.0. */
async function checkSelfOrAdmin({ ctx, user: me, db }: LegacyCall): Promise<void> {
  const id = readPathId(ctx, 'user');
  const user = await findUser(db, id);
  if (!user) throw notFound(`User ${id} not found`);
  if (me.id !== user.id && !isAdmin(me)) throw forbidden();
}

async function listUsers(call: LegacyCall) {
  return ((await v3List(call)) as unknown[]).map(presentUser);
}

async function getUser(call: LegacyCall) {
  readPathId(call.ctx, 'user');
  return presentUser(await v3Get(call));
}

async function patchUser(call: LegacyCall) {
  await checkSelfOrAdmin(call);
  const { ctx } = call;
  const body: unknown = ctx.request.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    // Version 2.0 ignores these instead of refusing them.
    const { id: _id, account_id: _account, ...rest } = body as Record<string, unknown>;
    ctx.request.body = rest;
  }
  return presentUser(await v3Patch(call));
}

async function resetPassword(call: LegacyCall) {
  await checkSelfOrAdmin(call);
  await v3Reset(call);
  return PROCESSED;
}

/** The 2.0 user endpoints, by method and route. */
export const v2UserEndpoints = {
  'GET users': listUsers,
  'GET user/:id': getUser,
  'PATCH user/:id': patchUser,
  'PATCH user/:id/password-reset': resetPassword,
};
