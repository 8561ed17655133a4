import { forbidden } from '../../errors.ts';
import { firstSetup } from '../../contracts/resources.ts';
import type { AppContext } from '../../http/context.ts';
import { publicRoute } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import { presentAccount, presentUser } from '../../presenters/index.ts';
import { setUpFirstAccount } from '../../commands/accounts.ts';
import { anyUser } from '../../store/users.ts';

/**
 * Whether the request comes from this machine. The socket address is used, never a forwarding
 * header: a LAN device must not be able to claim to be local.
 * @param ctx the request.
 * @returns true for 127.0.0.0/8 and ::1, also in their IPv4-mapped IPv6 form.
 */
export function isLoopback(ctx: AppContext): boolean {
  const address = ctx.req.socket.remoteAddress ?? '';
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4 === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4);
}

/**
 * First start: an appliance without users offers to create the first account and its
 * administrator, but only to someone sitting at the machine.
 */
export const setupRoutes = [
  publicRoute({
    method: 'GET',
    path: '/setup',
    summary: 'Whether the first account and administrator still have to be created',
    command: async ({ ctx, db }) => ({ needed: !(await anyUser(db)), local: isLoopback(ctx), status: 200 as const }),
    response: { schema: wire.setupState },
  }),
  publicRoute({
    method: 'POST',
    path: '/setup',
    summary: 'Create the first account and administrator (only from this machine, only while no user exists)',
    guard: ({ ctx }) => {
      if (!isLoopback(ctx)) throw forbidden();
    },
    request: { json: firstSetup },
    async command({ context, body }) {
      // Only someone at the machine gets here (the guard): the operator.
      const created = await setUpFirstAccount(context, { kind: 'operator' }, body);
      if (!created) throw forbidden();
      return {
        account: presentAccount(created.account, []),
        user: presentUser(created.user),
        auth_token: created.token,
        ...(created.site && { site: { id: created.site.id, name: created.site.name } }),
      };
    },
    response: { status: 201, schema: wire.setupAnswer, description: 'the account, the administrator and a token for them' },
  }),
];
