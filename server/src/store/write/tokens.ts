import type { Knex } from 'knex';
import crypto from 'node:crypto';
import { authChanged, tokenHash as hash } from '../authCache.ts';

/**
 * Issues a new opaque token for the user.
 * @param maxAgeS lifetime in seconds.
 * @returns the token text, which is never stored.
 */
export async function issueToken(db: Knex, userId: number, maxAgeS: number, now = Date.now()): Promise<string> {
  const token = crypto.randomBytes(32).toString('base64url');
  await db('auth_token').insert({ token_hash: hash(token), user_id: userId, expires_at: now + maxAgeS * 1000 });
  // Expired tokens of this user are of no use; dropping them here keeps the table small.
  await db('auth_token').where({ user_id: userId }).andWhere('expires_at', '<=', now).delete();
  return token;
}

/** Invalidates every token of the user (password reset, deactivation). */
export async function revokeTokens(db: Knex, userId: number): Promise<void> {
  await db('auth_token').where({ user_id: userId }).delete();
  await authChanged(db);
}
