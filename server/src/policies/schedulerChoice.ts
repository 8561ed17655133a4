import { isDeepStrictEqual } from 'node:util';
import { fieldError, forbidden } from '../errors.ts';
import type { Actor } from './principal.ts';
import { unregisteredSchedulerReason, type SchedulerPlugins } from '../../../worker/src/tasks.ts';
import { mayChooseScheduler } from './roles.ts';

const KEY = 'custom-scheduler';

/**
 * `custom-scheduler` chooses code that runs on the appliance, which is the deployment's decision:
 * only platform admins set, change or remove it, and only to a plugin the operator registered.
 * Everyone else may write attributes that leave it as it is.
 *
 * @param actor the caller.
 * @param plugins the registered scheduler plugins.
 * @param before the attributes stored now (`{}` for a new asset or sensor).
 * @param after the attributes the write stores, or undefined when it leaves them alone.
 * @throws the 403 answer for a caller who may not choose; 422 under `attributes` for a name that is not registered.
 */
export function authorizeSchedulerChoice(
  actor: Actor,
  plugins: SchedulerPlugins,
  before: Record<string, unknown>,
  after: Record<string, unknown> | undefined,
): void {
  if (after === undefined || isDeepStrictEqual(after[KEY], before[KEY])) return;
  if (!mayChooseScheduler(actor)) throw forbidden();
  if (after[KEY] === undefined) return;
  const refused = unregisteredSchedulerReason(after[KEY], plugins);
  if (refused !== null) throw fieldError('json', 'attributes', refused);
}
