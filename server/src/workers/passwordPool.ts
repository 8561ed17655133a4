import { Piscina } from 'piscina';
import { typedPool, workerThreadOptions } from './workerPool.ts';
import { UNKNOWN_USER_HASH } from '../../../worker/src/tasks.ts';

/** bcrypt work of the server, done in a thread so that a flood of logins cannot stall other requests. */
export interface PasswordPool {
  hash(password: string): Promise<string>;
  /** Whether the password matches the hash; without one (unknown user) it takes as long and answers false. */
  matches(password: string, hash: string | undefined): Promise<boolean>;
  destroy(): Promise<void>;
}

/**
 * One thread, started on first use and stopped when idle: bcrypt at cost 12 keeps a core busy
 * for a quarter second per attempt, and the other core stays free for the API.
 * @returns the pool.
 */
export function createPasswordPool(): PasswordPool {
  const pool = typedPool(new Piscina({ ...workerThreadOptions(256), minThreads: 0, maxThreads: 1, idleTimeout: 10 * 60_000 }));
  return {
    hash: (password) => pool.run('passwordHash', password),
    async matches(password, hash) {
      const matched = await pool.run('passwordMatches', { password, hash: hash ?? UNKNOWN_USER_HASH });
      return hash !== undefined && matched;
    },
    destroy: () => pool.destroy(),
  };
}
