import type { Knex } from 'knex';
import { z } from 'zod';
import { allowPasswordLink, setPassword } from '../../commands/users.ts';
import { newPassword } from '../../contracts/resources.ts';
import * as wire from '../../contracts/responses.ts';
import { fieldError, forbidden } from '../../errors.ts';
import type { AppContext } from '../../http/context.ts';
import { publicRoute, route } from '../../http/routes.ts';
import { sendMail } from '../../outbox.ts';
import { passwordToken, tokenUserId, tokenValid } from '../../passwordLinks.ts';
import { userPrincipal } from '../../policies/principal.ts';
import * as users from '../../store/users.ts';
import { idParams, userById } from '../load.ts';

/**
 * Flexsite's own password endpoints (FlexMeasures has its own web pages for these): change your
 * own password, an invitation / set-password link an administrator passes on, "forgot password",
 * and setting a password through such a link. Links go through the mail outbox.
 */

const linkAnswer = z.object({ link: z.string(), expires_at: z.string(), status: z.literal(200) });
const forgotAnswer = z.object({ message: z.string(), status: z.literal(200) });

/**
 * Where a mailed link points: the operator's FLEXSITE_PUBLIC_URL, else the address and port this
 * request reached the server at. Never the Host header: whoever asks for a "forgot password" mail
 * chooses it, and the link would carry the user's token to their host.
 */
function linkBase(ctx: AppContext): string {
  if (ctx.services.config.publicUrl) return ctx.services.config.publicUrl;
  const { localAddress = '127.0.0.1', localPort } = ctx.req.socket;
  const address = localAddress.replace(/^::ffff:(?=\d+\.)/, '');
  return `http://${address.includes(':') ? `[${address}]` : address}:${localPort}`;
}

/** Mails a set-password link to the user and returns it. */
async function mailLink(ctx: AppContext, db: Knex, target: users.User, why: 'invite' | 'forgot') {
  const { token, expiresMs } = passwordToken(target.id, (await users.getPasswordHash(db, target.id))!);
  const link = `${linkBase(ctx)}/set-password?token=${token}`;
  const expires = new Date(expiresMs).toISOString();
  await sendMail(ctx.services, {
    to: target.email,
    subject: why === 'invite' ? 'Set your Flexsite password' : 'A new Flexsite password',
    body:
      `Hello ${target.username},\n\n` +
      (why === 'invite' ? 'an administrator invited you to Flexsite. ' : 'someone (hopefully you) asked to set a new password. ') +
      `Choose your password here, once, before ${expires}:\n\n${link}\n`,
  });
  return { link, expires_at: expires };
}

export const passwordRoutes = [
  route({
    method: 'PATCH',
    path: '/users/:id/password',
    summary: 'Change your own password, giving the current one (Flexsite addition)',
    request: { params: idParams, json: z.strictObject({ current_password: z.string().max(200), password: newPassword }) },
    load: async ({ db, params }) => ({ target: await userById(db, params.id, 'update') }),
    async command({ ctx, db, user: me, context, principal, body, loaded: { target } }) {
      // Others' passwords are reset, never chosen for them.
      if (me.id !== target.id) throw forbidden();
      const current = await users.getPasswordHash(db, target.id);
      if (!(await ctx.services.passwords.matches(body.current_password, current))) {
        throw fieldError('json', 'current_password', 'The current password does not match.');
      }
      // The session in hand stays signed in.
      await setPassword(context, principal, { target, password: body.password, signOut: false });
      return { status: 200 as const };
    },
    response: { schema: wire.statusOnly },
  }),
  route({
    method: 'POST',
    path: '/users/:id/password-link',
    summary:
      'Make a set-password link for a user without a password of their own (an invitation, or after a reset), mailed to them and answered to pass on (Flexsite addition)',
    request: { params: idParams },
    // Account-admins of the user's account and admins; the user themselves changes their password instead.
    load: async ({ db, params }) => ({ target: await userById(db, params.id, 'update') }),
    async command({ ctx, db, context, principal, loaded: { target } }) {
      // Mailed after the audit entry is committed.
      await allowPasswordLink(context, principal, { target });
      return { ...(await mailLink(ctx, db, target, 'invite')), status: 200 as const };
    },
    response: { schema: linkAnswer },
  }),
  publicRoute({
    method: 'POST',
    path: '/password/forgot',
    summary: 'Mail a set-password link to an active user, by email address (Flexsite addition)',
    request: { json: z.strictObject({ email: z.string().max(255) }) },
    async command({ ctx, db, body }) {
      // Counted as a login attempt, so the endpoint cannot flood the outbox.
      await ctx.services.loginThrottle.admit(body.email, ctx.ip);
      const user = await users.getUserWithHashByEmail(db, body.email);
      if (user?.active) await mailLink(ctx, db, user, 'forgot');
      // The same answer either way: the endpoint does not tell who has an account.
      return {
        message: 'If this address belongs to an active user, a link to set a new password is in the mail outbox.',
        status: 200 as const,
      };
    },
    response: { schema: forgotAnswer },
  }),
  publicRoute({
    method: 'POST',
    path: '/password/set',
    summary: 'Set a password through a set-password link (Flexsite addition)',
    request: { json: z.strictObject({ token: z.string().max(300), password: newPassword }) },
    async command({ ctx, db, context, body }) {
      const id = tokenUserId(body.token);
      // Guessing signatures is throttled like guessing passwords.
      await ctx.services.loginThrottle.admit(`set-password:${id ?? 'malformed'}`, ctx.ip);
      const user = id === undefined ? undefined : await users.getUser(db, id);
      const hash = user?.active ? await users.getPasswordHash(db, user.id) : undefined;
      if (!user || !hash || !tokenValid(body.token, hash)) {
        throw fieldError('json', 'token', 'This link is not valid (any more): ask for a new one.');
      }
      // The link's holder acts as its user. Whoever held a session under the old password is signed out.
      await setPassword(context, userPrincipal(user), {
        target: user,
        password: body.password,
        signOut: true,
        throughLink: true,
      });
      return { status: 200 as const };
    },
    response: { schema: wire.statusOnly },
  }),
];
