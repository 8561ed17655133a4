import { z } from 'zod';
import { AppError } from '../errors.ts';
import { flexmeasuresVersion } from '../http/compat.ts';
import { publicRoute } from '../http/routes.ts';
import * as wire from '../contracts/responses.ts';
import { storeAnswers } from '../store/health.ts';
import type { AppContext } from '../http/context.ts';
import { signIn } from '../commands/signIn.ts';
import { userPrincipal } from '../policies/principal.ts';
import { getUserWithHashByEmail } from '../store/users.ts';

/**
 * Login answers 400s of its own rather than 422s, so its command checks the body; the schema
 * (which never fails) documents it.
 */
const tokenRequest = z.object({ email: z.string(), password: z.string() }).catch((c) => c.value as never);

const tokenError = (status: number, message: string) => new AppError(status, { errors: [message], status });

/** Version-independent endpoints under /api. */
export const apiRoutes = [
  publicRoute({
    method: 'GET',
    path: '/',
    summary: 'List the available API versions',
    command: async ({ ctx }) => ({
      flexmeasures_version: flexmeasuresVersion(ctx.services.config),
      message:
        'For these API versions a public endpoint is available, listing its service. For example: /api/v3_0. ' +
        'An authentication token can be requested at: /api/requestAuthToken',
      status: 200 as const,
      versions: ['v3_0'],
    }),
    response: { schema: wire.versionsAnswer },
  }),
  publicRoute({
    method: 'POST',
    path: '/requestAuthToken',
    summary: 'Obtain an authentication token',
    request: { json: tokenRequest },
    async command({ ctx, db }) {
      // Any Authorization header is ignored here: some clients resend a stale one when logging in again.
      if (!ctx.is('application/json')) throw tokenError(400, 'Content-type of request must be application/json');
      const body = (ctx.request.body ?? {}) as Record<string, unknown>;
      if (typeof body.email !== 'string' || !body.email) throw tokenError(400, "Please provide the 'email' parameter.");
      const email = body.email;
      const { log, passwords, loginThrottle } = ctx.services;
      // Counted before any lookup or password work, so a flood costs neither CPU nor the other requests.
      await loginThrottle.admit(email, ctx.ip);
      const user = await getUserWithHashByEmail(db, email);
      const password = typeof body.password === 'string' ? body.password : '';
      // Unknown e-mails get a password check too (against a dummy hash), so the answer takes as long.
      const matches = password ? await passwords.matches(password, user?.passwordHash) : false;
      // Refusals go to the log with the client's address, for whoever looks into an attack.
      const refuse = (status: number, message: string) => {
        log.warn({ email: email.slice(0, 255), address: ctx.ip, status }, 'login refused');
        return tokenError(status, message);
      };
      if (!user) throw refuse(404, `User with email '${email}' does not exist`);
      if (!password) throw refuse(400, "Please provide the 'password' parameter.");
      if (!matches) throw refuse(401, 'User password does not match.');
      // The reference hands inactive users a token that works once they are reactivated; not here.
      if (!user.active) throw refuse(401, 'Account is disabled.');
      await loginThrottle.succeeded(email);
      const token = await db.transaction((trx) => signIn({ db: trx, config: ctx.services.config }, userPrincipal(user)));
      return { auth_token: token, user_id: user.id, status: 200 as const };
    },
    response: { schema: wire.tokenAnswer },
  }),
  publicRoute({
    method: 'GET',
    path: '/ops/ping',
    summary: 'Check that the server answers',
    command: async () => ({ message: 'ok', status: 200 as const }),
    response: { schema: wire.pingAnswer },
  }),
];

/** Readiness of the stores, shared by the v3.0 route: 503 when one does not answer. */
export async function readiness(ctx: AppContext) {
  const sql = await storeAnswers(ctx.services.probe);
  const queue = await ctx.services.jobs.ping();
  const ok = sql && queue !== false;
  return { database_sql: sql, ...(queue === undefined ? {} : { database_redis: queue }), status: ok ? (200 as const) : (503 as const) };
}
