import { z } from 'zod';
import { AppError, fieldError, forbidden, unprocessable } from '../../errors.ts';
import { userCreate, userPatch } from '../../contracts/resources.ts';
import { boolText, intText } from '../../contracts/fields.ts';
import { randomPassword } from '../../domain/passwords.ts';
import { parseInput } from '../../http/validate.ts';
import type { RouteSpec } from '../../http/routes.ts';
import { authorize } from '../../policies/access.ts';
import { presentUser } from '../../presenters/index.ts';
import { sendMail } from '../../outbox.ts';
import { getAccount } from '../../store/accounts.ts';
import { revokeTokens } from '../../store/tokens.ts';
import * as users from '../../store/users.ts';
import type { AppContext } from '../../http/context.ts';
import { accountAccess, idParams, loadUser, readableAccount } from './load.ts';

const listQuery = z.object({ account_id: intText.optional(), include_inactive: boolText.optional() });

/** Role ids must exist, and only admins may hand out the platform-wide roles. */
async function checkRoles(ctx: AppContext, roleIds: number[], current: number[]): Promise<void> {
  const roles = await users.listRoles(ctx.services.db);
  const unknown = roleIds.filter((r) => !roles.some((role) => role.id === r));
  if (unknown.length) throw unprocessable('json', { flexmeasures_roles: [`Unknown role id(s): ${unknown.join(', ')}.`] });
  const platformWide = roles.filter((r) => r.name === 'admin' || r.name === 'admin-reader');
  const handsOut = platformWide.some((r) => roleIds.includes(r.id) && !current.includes(r.id));
  if (handsOut && !ctx.state.user!.roles.includes('admin')) throw forbidden();
}

/** Emails and usernames are unique; a clash is the reference's 400. */
async function checkIdentityFree(ctx: AppContext, props: { email?: string; username?: string; except?: number }): Promise<void> {
  const taken = await users.takenIdentity(ctx.services.db, props);
  if (!taken) return;
  throw new AppError(400, {
    message: 'Duplicate user already exists',
    detail: taken === 'email' ? `email ${props.email} is taken` : `username ${props.username} is taken`,
    status: 400,
  });
}

export const userRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/users',
    summary: 'Download user list',
    request: { query: listQuery },
    async handler(ctx) {
      const query = parseInput(listQuery, ctx.query, 'query');
      const account = await readableAccount(ctx, query.account_id);
      const list = await users.listUsers(ctx.services.db, {
        accountId: account.id,
        includeInactive: query.include_inactive ?? false,
      });
      ctx.body = list.map(presentUser);
    },
  },
  {
    method: 'GET',
    path: '/roles',
    summary: 'List the user roles, whose ids users carry in flexmeasures_roles',
    async handler(ctx) {
      ctx.body = await users.listRoles(ctx.services.db);
    },
  },
  {
    method: 'POST',
    path: '/users',
    summary: 'Create a new user',
    request: { json: userCreate },
    responses: { 201: 'the new user' },
    async handler(ctx) {
      const body = parseInput(userCreate, ctx.request.body, 'json');
      const account = await getAccount(ctx.services.db, body.account_id);
      if (!account) throw fieldError('json', 'account_id', `Account with Id ${body.account_id} doesn't exist.`);
      // Admins add users anywhere; account-admins only to their own account.
      authorize(ctx.state.user!, 'create-children', accountAccess(account));
      const roleIds = body.flexmeasures_roles ?? [];
      await checkRoles(ctx, roleIds, []);
      await checkIdentityFree(ctx, { email: body.email, username: body.username });
      // Without a password nobody can sign in as the new user until an admin resets it.
      const passwordHash = await ctx.services.passwords.hash(body.password ?? randomPassword());
      const user = await ctx.services.db.transaction((trx) =>
        users.createUser(trx, {
          email: body.email,
          username: body.username,
          passwordHash,
          accountId: account.id,
          roleIds,
          timezone: body.timezone,
          active: body.active,
        }),
      );
      ctx.status = 201;
      ctx.body = presentUser(user);
    },
  },
  {
    method: 'GET',
    path: '/users/:id',
    summary: 'Get a user',
    request: { params: idParams },
    async handler(ctx) {
      const user = await loadUser(ctx);
      authorize(ctx.state.user!, 'read', { kind: 'user', id: user.id, accountId: user.account_id });
      ctx.body = { ...presentUser(user), status: 200 };
    },
  },
  {
    method: 'PATCH',
    path: '/users/:id',
    summary: 'Patch data for an existing user',
    request: { params: idParams, json: userPatch },
    async handler(ctx) {
      const me = ctx.state.user!;
      const user = await loadUser(ctx);
      const body = parseInput(userPatch, ctx.request.body, 'json');
      authorize(me, 'update', { kind: 'user', id: user.id, accountId: user.account_id });
      // Nobody, admins included, may switch off their own account or change their own roles.
      if (me.id === user.id && (body.active !== undefined || body.flexmeasures_roles !== undefined)) throw forbidden();
      const { db } = ctx.services;
      if (body.flexmeasures_roles) await checkRoles(ctx, body.flexmeasures_roles, user.roleIds);
      await checkIdentityFree(ctx, { email: body.email, username: body.username, except: user.id });
      await db.transaction(async (trx) => {
        await users.updateUser(trx, user.id, {
          email: body.email,
          username: body.username,
          active: body.active,
          timezone: body.timezone,
        });
        if (body.flexmeasures_roles) await users.setRoles(trx, user.id, body.flexmeasures_roles);
        if (body.active === false) await revokeTokens(trx, user.id);
      });
      ctx.body = { ...presentUser((await users.getUser(db, user.id))!), status: 200 };
    },
  },
  {
    method: 'PATCH',
    path: '/users/:id/password-reset',
    summary: 'Password reset',
    request: { params: idParams },
    async handler(ctx) {
      const me = ctx.state.user!;
      const user = await loadUser(ctx);
      // As for PATCH: the user themselves, account-admins of their account, admins.
      authorize(me, 'update', { kind: 'user', id: user.id, accountId: user.account_id });
      const passwordHash = await ctx.services.passwords.hash(randomPassword());
      await ctx.services.db.transaction(async (trx) => {
        await trx('user').where({ id: user.id }).update({ password_hash: passwordHash });
        await revokeTokens(trx, user.id);
      });
      await sendMail(ctx.services, {
        to: user.email,
        subject: 'Your Flexsite password has been reset',
        body:
          `Hello ${user.username},\n\nthe password of your Flexsite account was reset and every session was signed out. ` +
          'Ask an administrator of this appliance to set a new password for you ' +
          `(npm run cli -- set password --email ${user.email}).\n`,
      });
      ctx.body = { status: 200 };
    },
  },
];
