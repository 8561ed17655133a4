import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { dialectOf } from '../db/dialect.ts';
import { getUser, type User } from './users.ts';

/**
 * Token → user, remembered so that an authenticated request costs one small read (the auth
 * epoch) instead of reading token, user and roles. Every change to a user, its roles or its
 * tokens raises the epoch in its own transaction (`authChanged`), in whichever process it is
 * made (the CLI too), and an entry counts only while the epoch it was read under is current.
 */
const MAX_ENTRIES = 10_000;

interface Entry {
  /** The store the entry was read from: tests run several servers in one process. */
  db: Knex;
  epoch: number;
  user: User;
  tokenExpiresAt: number;
}

const entries = new Map<string, Entry>();

/** The stored form of a token: only its hash is kept. */
export const tokenHash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

// Read by every authenticated request: a kept statement (see `Dialect.query`).
const currentEpoch = async (db: Knex) =>
  Number((await dialectOf(db).query<{ epoch: number }>(db, 'SELECT epoch FROM auth_epoch WHERE id = 1', []))[0].epoch);

/**
 * The user (active or not) a live token belongs to.
 * @returns the user, or undefined for an unknown or expired token.
 */
export async function userForToken(db: Knex, token: string, now = Date.now()): Promise<User | undefined> {
  const hash = tokenHash(token);
  // Read before the token and user: a change committed in between makes this entry stale at once.
  const epoch = await currentEpoch(db);
  const hit = entries.get(hash);
  if (hit && hit.db === db && hit.epoch === epoch && hit.tokenExpiresAt > now) return hit.user;
  const row = await db('auth_token')
    .where({ token_hash: hash })
    .andWhere('expires_at', '>', now)
    .first<{ user_id: number; expires_at: number } | undefined>('user_id', 'expires_at');
  const user = row && (await getUser(db, row.user_id));
  if (!row || !user) {
    entries.delete(hash);
    return undefined;
  }
  if (entries.size >= MAX_ENTRIES) entries.clear();
  entries.set(hash, { db, epoch, user, tokenExpiresAt: Number(row.expires_at) });
  return user;
}

/**
 * Marks that users, roles or tokens change: what servers remember of them is stale once the
 * caller's transaction commits.
 * @param db the transaction that makes the change (or the store, for a single statement).
 */
export async function authChanged(db: Knex | Knex.Transaction): Promise<void> {
  await db('auth_epoch').where({ id: 1 }).increment('epoch', 1);
}
