import { z } from 'zod';
import { AppError, forbidden, unprocessable } from '../../errors.ts';
import { userPatch } from '../../contracts/resources.ts';
import { boolText, intText } from '../../contracts/fields.ts';
import { hashPassword, randomPassword } from '../../domain/passwords.ts';
import { parseInput } from '../../http/validate.ts';
import type { RouteSpec } from '../../http/routes.ts';
import { authorize } from '../../policies/access.ts';
import { presentUser } from '../../presenters/index.ts';
import { sendMail } from '../../outbox.ts';
import { revokeTokens } from '../../store/tokens.ts';
import * as users from '../../store/users.ts';
import { accountAccess, idParams, loadAccount, loadUser } from './load.ts';

const listQuery = z.object({ account_id: intText.optional(), include_inactive: boolText.optional() });

export const userRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/users',
    summary: 'Download user list',
    request: { query: listQuery },
    async handler(ctx) {
      const me = ctx.state.user!;
      const query = parseInput(listQuery, ctx.query, 'query');
      const account = await loadAccount(ctx, query.account_id ?? me.account_id);
      authorize(me, 'read', accountAccess(account));
      const list = await users.listUsers(ctx.services.db, {
        accountId: account.id,
        includeInactive: query.include_inactive ?? false,
      });
      ctx.body = list.map(presentUser);
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
      if (body.flexmeasures_roles) {
        const known = new Set((await users.listRoles(db)).map((r) => r.id));
        const unknown = body.flexmeasures_roles.filter((r) => !known.has(r));
        if (unknown.length) throw unprocessable('json', { flexmeasures_roles: [`Unknown role id(s): ${unknown.join(', ')}.`] });
        // Only admins may hand out the platform-wide roles.
        const adminRoles = (await users.listRoles(db)).filter((r) => r.name === 'admin' || r.name === 'admin-reader');
        const handsOutAdmin = adminRoles.some((r) => body.flexmeasures_roles!.includes(r.id) && !user.roleIds.includes(r.id));
        if (handsOutAdmin && !me.roles.includes('admin')) throw forbidden();
      }
      if (body.email || body.username) {
        const taken = await db('user')
          .whereNot({ id: user.id })
          .andWhere((q) => {
            if (body.email) q.orWhereRaw('lower(email) = ?', [body.email.toLowerCase()]);
            if (body.username) q.orWhere({ username: body.username });
          })
          .first('email', 'username');
        if (taken) {
          throw new AppError(400, {
            message: 'Duplicate user already exists',
            detail: taken.email === body.email ? `email ${body.email} is taken` : `username ${body.username} is taken`,
            status: 400,
          });
        }
      }
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
      // The user themselves, or an admin; account-admins may not take over other accounts' logins.
      if (me.id !== user.id && !me.roles.includes('admin')) throw forbidden();
      const passwordHash = await hashPassword(randomPassword());
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
