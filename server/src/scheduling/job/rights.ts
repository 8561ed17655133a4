import type { Knex } from 'knex';
import type { PrincipalRef } from '../../contracts/jobs.ts';
import type { JobSpec } from '../../contracts/jobSpec.ts';
import { firstRefused } from '../../policies/references.ts';
import { describePrincipal, resolvePrincipal } from '../../policies/principal.ts';
import { sensorsOnce, type JobSensors } from '../buildProblem.ts';
import { jobReferences, scheduledSensors } from '../jobReferences.ts';
import { SchedulingFailure } from '../failure.ts';

/**
 * Re-checks the owner's current rights on every sensor of the job, so that a job queued before a
 * role change, a deactivation or a move of a sensor cannot read or write where its owner no
 * longer may; and the rights of the scheduled asset's account, so that a job on an account's
 * asset never reads or writes what that account may not, whoever triggered it (an admin's
 * trigger on stored configuration included).
 * @param sensors the job's reader, which keeps the sensors for its inputs; without it (in the
 *   write transaction) they are read afresh, as they are now, through `db`.
 * @throws a PermissionDenied failure naming what is refused.
 */
export async function assertOwnerMay(db: Knex, ref: PrincipalRef | undefined, spec: JobSpec, sensors?: JobSensors): Promise<void> {
  const principal = await resolvePrincipal(db, ref);
  if (typeof principal === 'string') throw new SchedulingFailure('PermissionDenied', `${principal}; nothing was stored.`);
  const read = sensors ?? sensorsOnce(db);
  const refs = jobReferences(spec);
  const [scheduledId] = scheduledSensors(spec);
  // Every sensor the job names, in one read; both checks below take them from it.
  await read.load([scheduledId, ...refs.map((r) => r.id)]);
  const scheduled = await read(scheduledId);
  if (!scheduled) throw new SchedulingFailure('PermissionDenied', 'the scheduled sensor no longer exists; nothing was stored.');
  const byOwner = await firstRefused(db, principal, refs, read);
  // Once the principal passes, whatever is refused is refused to the account.
  const r = byOwner ?? (await firstRefused(db, principal, refs, read, scheduled.account_id));
  if (r) {
    const who = byOwner
      ? `${describePrincipal(ref!)} may no longer`
      : `the account of the scheduled asset (${scheduled.account_id ?? 'public'}) may not`;
    throw new SchedulingFailure(
      'PermissionDenied',
      `${who} ${r.use === 'write' ? 'write to' : 'read'} sensor ${r.id} (${r.field}); nothing was stored.`,
    );
  }
}
