import type { Knex } from 'knex';

/**
 * Whether the store answers a trivial query within the time limit.
 * @param probe a connection kept apart for this check, so a busy pool cannot make it time out.
 * @param timeoutMs how long to wait.
 */
export async function storeAnswers(probe: Knex, timeoutMs = 2000): Promise<boolean> {
  return Promise.race([
    probe.raw('select 1').then(
      () => true,
      () => false,
    ),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref()),
  ]);
}
