import crypto from 'node:crypto';

/**
 * Set-password links (invitations, "forgot password"): `<user id>.<expiry ms>.<signature>`,
 * signed with the user's current password hash. The hash never leaves the server, so nobody else
 * can sign; and it changes when the password is set, so a link works once and every earlier link
 * of that user dies with it. No table to keep, nothing to clean up.
 */

/** How long a link stays valid: long enough for an invitation to be passed on, short enough to go stale. */
export const LINK_VALID_MS = 72 * 3_600_000;

const signature = (userId: number, expiresMs: number, passwordHash: string) =>
  crypto.createHmac('sha256', passwordHash).update(`set-password:${userId}:${expiresMs}`).digest('base64url');

/** @returns a token for the user, valid until `nowMs + LINK_VALID_MS` or until the password changes. */
export function passwordToken(userId: number, passwordHash: string, nowMs = Date.now()): { token: string; expiresMs: number } {
  const expiresMs = nowMs + LINK_VALID_MS;
  return { token: `${userId}.${expiresMs}.${signature(userId, expiresMs, passwordHash)}`, expiresMs };
}

/** @returns the user id a token names, before it is checked (undefined for a malformed one). */
export function tokenUserId(token: string): number | undefined {
  const id = Number(/^(\d+)\.\d+\.[\w-]+$/.exec(token)?.[1]);
  return Number.isSafeInteger(id) ? id : undefined;
}

/** @returns whether the token is unexpired and signed with this user's current password hash. */
export function tokenValid(token: string, passwordHash: string, nowMs = Date.now()): boolean {
  const m = /^(\d+)\.(\d+)\.([\w-]+)$/.exec(token);
  if (!m) return false;
  const expiresMs = Number(m[2]);
  if (!(expiresMs > nowMs)) return false;
  const expected = Buffer.from(signature(Number(m[1]), expiresMs, passwordHash));
  const given = Buffer.from(m[3]);
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}
