import { z } from 'zod';
import { createUser, resetPassword, updateUser } from '../../commands/users.ts';
import { userCreate, userPatch } from '../../contracts/resources.ts';
import { boolText, intText } from '../../contracts/fields.ts';
import { pageOf, pageQuery, pageSchema, sortedAsAsked } from '../../contracts/paging.ts';
import { searchTerms } from '../../domain/searchTerms.ts';
import * as wire from '../../contracts/responses.ts';
import { route } from '../../http/routes.ts';
import { presentUser } from '../../presenters/index.ts';
import { sendMail } from '../../outbox.ts';
import * as users from '../../store/users.ts';
import { idParams, listedAccount, userById } from '../load.ts';

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

const presentOne = (u: users.User) => ({ ...presentUser(u), status: 200 });

/** A value as one POSIX shell word: the mail suggests a command to copy, and e-mails may hold an apostrophe. */
const shellWord = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

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
    // Admins add users anywhere; account-admins only to their own account (the command checks).
    async command({ context, principal, body }) {
      const { account_id: accountId, flexmeasures_roles: roleIds = [], ...fields } = body;
      const made = await createUser(context, principal, { ...fields, accountId, roleIds });
      return made.user;
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
    command: ({ context, principal, body, loaded: { target } }) => updateUser(context, principal, { target, changes: body }),
    response: { schema: wire.userAnswer, present: presentOne },
  }),
  route({
    method: 'PATCH',
    path: '/users/:id/password-reset',
    summary: 'Password reset',
    request: { params: idParams },
    // As for PATCH: the user themselves, account-admins of their account, admins.
    load: async ({ db, params }) => ({ target: await userById(db, params.id, 'update') }),
    async command({ ctx, context, principal, loaded: { target } }) {
      await resetPassword(context, principal, { target });
      // Mailed after the commit: the message must not announce a reset that did not happen.
      await sendMail(ctx.services, {
        to: target.email,
        subject: 'Your Flexsite password has been reset',
        body:
          `Hello ${target.username},\n\nthe password of your Flexsite account was reset and every session was signed out. ` +
          'Ask an administrator of this appliance for a set-password link, or to set a new password for you ' +
          `(npm run cli -- set password --email ${shellWord(target.email)}).\n`,
      });
      return { status: 200 as const };
    },
    response: { schema: wire.statusOnly },
  }),
];
