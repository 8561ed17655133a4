import { forbidden } from '../errors.ts';
import { rightsOf, type Principal } from '../policies/principal.ts';
import { issueToken } from '../store/write/tokens.ts';
import { recordLogin } from '../store/write/users.ts';
import type { Writes } from './context.ts';

/**
 * Signs in the principal's user, whose password the caller has checked: records the time of the
 * login and issues a token that lasts the configured time.
 * @returns the token, which is stored only as its hash.
 */
export async function signIn(context: Writes<'config'>, principal: Principal): Promise<string> {
  const user = rightsOf(principal);
  if (!user) throw forbidden();
  await recordLogin(context.db, user.id, Date.now());
  return issueToken(context.db, user.id, context.config.tokenMaxAgeS);
}
