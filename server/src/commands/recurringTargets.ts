import { authorize } from '../policies/access.ts';
import { auditActor, rightsOf, type Principal } from '../policies/principal.ts';
import { assetAccess } from '../policies/references.ts';
import { checkRecurringTargets, deviceCapacity } from '../scheduling/recurringTargets.ts';
import type { Asset } from '../store/assets.ts';
import { type RecurringSocTarget } from '../store/recurringSocTargets.ts';
import { replaceRecurringSocTargets } from '../store/write/recurringSocTargets.ts';
import { listSensors } from '../store/sensors.ts';
import type { Writes } from './context.ts';

/** A recurring target as asked for: its time zone may be left to the device's. */
export type AskedTarget = Omit<RecurringSocTarget, 'id' | 'assetId' | 'timezone'> & { timezone?: string };

/**
 * Replaces a device's recurring state-of-charge targets, which automations turn into each run's
 * soc-targets (whoever may change the device). Times are read in the zone of the device's sensors
 * unless a target names its own (without sensors: the principal's).
 * @returns the targets as stored; a 422 under `targets` for one the device cannot reach.
 */
export async function replaceRecurringTargets(
  context: Writes,
  principal: Principal,
  input: { asset: Asset; targets: AskedTarget[] },
): Promise<RecurringSocTarget[]> {
  const { db } = context;
  const { asset } = input;
  authorize(principal, 'update', await assetAccess(db, asset.account_id));
  const zone = (await listSensors(db, { assetId: asset.id }))[0]?.timezone ?? rightsOf(principal)?.timezone ?? 'UTC';
  const targets = input.targets.map((t) => ({ ...t, timezone: t.timezone ?? zone }));
  checkRecurringTargets(targets, await deviceCapacity(db, asset), 'targets');
  return replaceRecurringSocTargets(db, auditActor(principal), asset, targets);
}
