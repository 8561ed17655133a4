import type { Knex } from 'knex';
import { z } from 'zod';
import { AppError, fieldError, forbidden, unprocessable } from '../../errors.ts';
import { userCreate, userPatch } from '../../contracts/resources.ts';
import { boolText, intText } from '../../contracts/fields.ts';
import { pageOf, pageQuery, pageSchema, sortedAsAsked } from '../../contracts/paging.ts';
import { searchTerms } from '../../domain/searchTerms.ts';
import * as wire from '../../contracts/responses.ts';
import { randomPassword } from '../../domain/passwords.ts';
import { route } from '../../http/routes.ts';
import { mayChangeStanding, mayGrantRole, removesActiveAdmin } from '../../policies/roles.ts';
import { presentUser } from '../../presenters/index.ts';
import { sendMail } from '../../outbox.ts';
import { getAccount } from '../../store/accounts.ts';
import { userChangeEvent } from '../../commands/auditEvents.ts';
import { actorOf, recordAudit } from '../../store/auditLog.ts';
import { revokeTokens } from '../../store/tokens.ts';
import * as users from '../../store/users.ts';
import { accountAccess, idParams, listedAccount, userById } from '../load.ts';

/** `account` is FlexMeasures 1.0's spelling (v3.0-32) of `account_id`. */
const userSortKeys = ['username', 'email', 'lastLogin', 'lastSeen'] as const;
const listQuery = pageQuery(userSortKeys).extend({
  account_id: intText.optional(),
  account: intText.optional(),
  include_inactive: boolText.optional(),
});

const userSortKey = (u: users.User, key: (typeof userSortKeys)[number]) =>
  ({ username: u.username, email: u.email, lastLogin: u.last_login_at, lastSeen: u.last_seen_at })[key];

/** 1.0's user search: every term in the user's email, username or account name (any case). */
function searchedUsers(list: users.User[], accountName: string, filter: string | undefined): users.User[] {
  const terms = filter === undefined ? [] : searchTerms(filter).map((t) => t.toLowerCase());
  return list.filter((u) => terms.every((term) => [u.email, u.username, accountName].some((v) => v.toLowerCase().includes(term))));
}

/** Role ids must exist, and only admins may hand out the platform-wide roles. */
async function checkRoles(db: Knex, caller: users.User, roleIds: number[], current: number[]): Promise<void> {
  const roles = await users.listRoles(db);
  const unknown = roleIds.filter((r) => !roles.some((role) => role.id === r));
  if (unknown.length) throw unprocessable('json', { flexmeasures_roles: [`Unknown role id(s): ${unknown.join(', ')}.`] });
  const handedOut = roles.filter((r) => roleIds.includes(r.id) && !current.includes(r.id));
  if (handedOut.some((r) => !mayGrantRole(caller, r.name))) throw forbidden();
}

/** Emails and usernames are unique; a clash is the reference's 400. */
async function checkIdentityFree(db: Knex, props: { email?: string; username?: string; except?: number }): Promise<void> {
  const taken = await users.takenIdentity(db, props);
  if (!taken) return;
  throw new AppError(400, {
    message: 'Duplicate user already exists',
    detail: taken === 'email' ? `email ${props.email} is taken` : `username ${props.username} is taken`,
    status: 400,
  });
}

const presentOne = (u: users.User) => ({ ...presentUser(u), status: 200 });

/** A value as one POSIX shell word: the mail suggests a command to copy, and e-mails may hold an apostrophe. */
const shellWord = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

/**
 * The appliance must keep an administrator who can sign in: the last active one may not be
 * deactivated, lose the admin role or have their password reset (a random one nobody knows).
 * @param change what would happen to the target.
 */
async function keepLastAdmin(db: Knex, target: users.User, change: { active?: boolean; roleIds?: number[]; reset?: boolean }) {
  const roles = await users.listRoles(db);
  const roleNames = change.roleIds?.map((id) => roles.find((r) => r.id === id)?.name ?? '');
  if (removesActiveAdmin(target, { ...change, roleNames }) && (await users.countActiveAdmins(db, target.id)) === 0) {
    throw new AppError(409, {
      message: `${target.username} is the last active administrator: make another user an active admin first.`,
      status: 409,
    });
  }
}

export const userRoutes = [
  route({
    method: 'GET',
    path: '/users',
    summary: 'Download user list',
    request: { query: listQuery },
    load: async ({ db, user, query }) => ({ account: await listedAccount(db, user, query.account ?? query.account_id) }),
    async command({ db, query, loaded }) {
      const all = await users.listUsers(db, { accountId: loaded.account.id, includeInactive: query.include_inactive ?? false });
      const found = searchedUsers(all, loaded.account.name, query.filter);
      return query.page === undefined ? sortedAsAsked(query, found, userSortKey) : pageOf(query, all.length, found, userSortKey);
    },
    response: {
      schema: z.union([z.array(wire.user), pageSchema(wire.user)]),
      present: (found) => (Array.isArray(found) ? found.map(presentUser) : { ...found, data: found.data.map(presentUser) }),
    },
  }),
  route({
    method: 'GET',
    path: '/roles',
    summary: 'List the user roles, whose ids users carry in flexmeasures_roles',
    command: ({ db }) => users.listRoles(db),
    response: { schema: z.array(wire.role) },
  }),
  route({
    method: 'POST',
    path: '/users',
    summary: 'Create a new user',
    request: { json: userCreate },
    // Admins add users anywhere; account-admins only to their own account.
    load: async ({ db, body }) => {
      const account = await getAccount(db, body.account_id);
      if (!account) throw fieldError('json', 'account_id', `Account with Id ${body.account_id} doesn't exist.`);
      return { account: { value: account, permission: 'create-children' as const, on: accountAccess(account) } };
    },
    async command({ ctx, db, user, body, loaded: { account } }) {
      const roleIds = body.flexmeasures_roles ?? [];
      await checkRoles(db, user, roleIds, []);
      await checkIdentityFree(db, { email: body.email, username: body.username });
      // Without a password nobody can sign in as the new user until an admin resets it. Hashed
      // before the transaction, which would otherwise hold the store for the hashing time.
      const passwordHash = await ctx.services.passwords.hash(body.password ?? randomPassword());
      return db.transaction(async (trx) => {
        const created = await users.createUser(trx, {
          email: body.email,
          username: body.username,
          passwordHash,
          accountId: account.id,
          roleIds,
          timezone: body.timezone,
          active: body.active,
        });
        await recordAudit(trx, actorOf(user), { userId: created.id, accountId: account.id }, `User ${created.username} created`);
        return created;
      });
    },
    response: { status: 201, schema: wire.user, present: presentUser, description: 'the new user' },
  }),
  route({
    method: 'GET',
    path: '/users/:id',
    summary: 'Get a user',
    request: { params: idParams },
    load: async ({ db, params }) => ({ user: await userById(db, params.id, 'read') }),
    command: async ({ loaded }) => loaded.user,
    response: { schema: wire.userAnswer, present: presentOne },
  }),
  route({
    method: 'PATCH',
    path: '/users/:id',
    summary: 'Patch data for an existing user',
    request: { params: idParams, json: userPatch },
    load: async ({ db, params }) => ({ target: await userById(db, params.id, 'update') }),
    transaction: true,
    async command({ db, user: me, body, loaded: { target } }) {
      if (!mayChangeStanding(me, target) && (body.active !== undefined || body.flexmeasures_roles !== undefined)) throw forbidden();
      if (body.flexmeasures_roles) await checkRoles(db, me, body.flexmeasures_roles, target.roleIds);
      await keepLastAdmin(db, target, { active: body.active, roleIds: body.flexmeasures_roles });
      await checkIdentityFree(db, { email: body.email, username: body.username, except: target.id });
      await users.updateUser(db, target.id, { email: body.email, username: body.username, active: body.active, timezone: body.timezone });
      if (body.flexmeasures_roles) await users.setRoles(db, target.id, body.flexmeasures_roles);
      if (body.active === false) await revokeTokens(db, target.id);
      const roleNames = new Map((await users.listRoles(db)).map((r) => [r.id, r.name]));
      const newRoles = body.flexmeasures_roles ?? target.roleIds;
      const event = userChangeEvent({
        removedRoles: target.roleIds.filter((r) => !newRoles.includes(r)).map((r) => roleNames.get(r)!),
        addedRoles: newRoles.filter((r) => !target.roleIds.includes(r)).map((r) => roleNames.get(r)!),
        active: body.active,
      });
      if (event) await recordAudit(db, actorOf(me), { userId: target.id, accountId: target.account_id }, event);
      return (await users.getUser(db, target.id))!;
    },
    response: { schema: wire.userAnswer, present: presentOne },
  }),
  route({
    method: 'PATCH',
    path: '/users/:id/password-reset',
    summary: 'Password reset',
    request: { params: idParams },
    // As for PATCH: the user themselves, account-admins of their account, admins.
    load: async ({ db, params }) => ({ target: await userById(db, params.id, 'update') }),
    async command({ ctx, db, user, loaded: { target } }) {
      await keepLastAdmin(db, target, { reset: true });
      // Hashed outside the transaction, which would otherwise hold the store for the hashing time.
      const passwordHash = await ctx.services.passwords.hash(randomPassword());
      await db.transaction(async (trx) => {
        await users.updateUser(trx, target.id, { password_hash: passwordHash });
        await revokeTokens(trx, target.id);
        await recordAudit(
          trx,
          actorOf(user),
          { userId: target.id, accountId: target.account_id },
          `Password reset for user ${target.username}`,
        );
      });
      // Mailed after the commit: the message must not announce a reset that did not happen.
      await sendMail(ctx.services, {
        to: target.email,
        subject: 'Your Flexsite password has been reset',
        body:
          `Hello ${target.username},\n\nthe password of your Flexsite account was reset and every session was signed out. ` +
          'Ask an administrator of this appliance to set a new password for you ' +
          `(npm run cli -- set password --email ${shellWord(target.email)}).\n`,
      });
      return { status: 200 as const };
    },
    response: { schema: wire.statusOnly },
  }),
];
