import { unauthorized } from '../errors.ts';
import { userForToken } from '../store/authCache.ts';
import type { User } from '../store/users.ts';
import type { AppContext } from './context.ts';

/**
 * Finds the caller's token: the raw token in `Authorization` (a `Bearer ` prefix is tolerated),
 * else the `auth_token` query parameter.
 */
function tokenOf(ctx: AppContext): string | undefined {
  const header = ctx.get('Authorization').trim();
  if (header) return header.replace(/^Bearer\s+/i, '');
  const query = ctx.query.auth_token;
  return typeof query === 'string' && query ? query : undefined;
}

/**
 * Authenticates the request.
 * @returns the active user the token belongs to; throws the 401 answer otherwise.
 */
export async function requireUser(ctx: AppContext): Promise<User> {
  if (ctx.state.user) return ctx.state.user;
  const token = tokenOf(ctx);
  const user = token ? await userForToken(ctx.services.reader, token) : undefined;
  // Inactive users are never authenticated, admins included.
  if (!user || !user.active) throw unauthorized();
  ctx.state.user = user;
  return user;
}
