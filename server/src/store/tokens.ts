import crypto from 'node:crypto';
import type { Knex } from 'knex';

const hash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

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

/** @returns the id of the user a live token belongs to, or undefined. */
export async function userIdForToken(db: Knex, token: string, now = Date.now()): Promise<number | undefined> {
  const row = await db('auth_token')
    .where({ token_hash: hash(token) })
    .andWhere('expires_at', '>', now)
    .first<{ user_id: number } | undefined>('user_id');
  return row?.user_id;
}

/** Invalidates every token of the user (password reset, deactivation). */
export async function revokeTokens(db: Knex, userId: number): Promise<void> {
  await db('auth_token').where({ user_id: userId }).delete();
}
