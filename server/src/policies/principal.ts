import type { Knex } from 'knex';
import type { PrincipalRef } from '../contracts/jobs.ts';
import { actorOf, type Actor as AuditActor } from '../store/auditLog.ts';
import { getAutomation, type Automation } from '../store/automations.ts';
import { getUser, type User } from '../store/users.ts';

/**
 * Who a piece of work runs as. Work that runs later (a job, an automation's run) runs as a
 * principal too, recorded with the job as a `PrincipalRef` and resolved again when it runs, so it
 * acts with the rights its principal holds *then*, not those held when it was queued.
 */
export type Principal =
  /** A signed-in user, acting for themselves. */
  | { kind: 'user'; user: User }
  /** An automation acting for the user who made it, with that user's current rights. */
  | { kind: 'automation'; automationId: number; owner: User }
  /** A device on the LAN, through its MQTT link, with the current rights of the user who made the link. */
  | { kind: 'device'; linkId: number; linkName: string; owner: User }
  /**
   * The site operator at the command line: whoever may run the CLI holds the data folder (the
   * store itself), so no rule inside the store could stop them. Checks that protect an account
   * from another (what an asset's account may use) still apply to the operator's work.
   */
  | { kind: 'operator' };

/** Policies take a principal; a bare user stands for the principal of their own request. */
export type Actor = Principal | User;

export const userPrincipal = (user: User): Principal => ({ kind: 'user', user });

/** The user whose rights an actor acts with; undefined for the operator, who is not bound by them. */
export function rightsOf(actor: Actor): User | undefined {
  if (!('kind' in actor)) return actor;
  if (actor.kind === 'user') return actor.user;
  return actor.kind === 'automation' || actor.kind === 'device' ? actor.owner : undefined;
}

/** How a principal is recorded with a job. */
export function principalRef(principal: Principal): PrincipalRef {
  if (principal.kind === 'user') return { kind: 'user', userId: principal.user.id };
  if (principal.kind === 'automation') return { kind: 'automation', automationId: principal.automationId, ownerId: principal.owner.id };
  // A device queues no job of its own; were it to, the job would run as the link's maker.
  if (principal.kind === 'device') return { kind: 'user', userId: principal.owner.id };
  return { kind: 'operator' };
}

/** For a job's messages: whose rights it runs with, e.g. "the user who made automation 3 (id 7)". */
export function describePrincipal(ref: PrincipalRef): string {
  if (ref.kind === 'user') return `the user who triggered this job (id ${ref.userId})`;
  if (ref.kind === 'automation') return `the user who made automation ${ref.automationId} (id ${ref.ownerId})`;
  return 'the operator';
}

/**
 * The principal of a recorded job with its rights as they are now: the user (or the automation's
 * maker) read afresh from the store. An automation acts for its maker only while it exists and was
 * made by that user; a deactivated user has no rights left to act with.
 * @param automation the automation of an automation's principal as the caller has just read it
 *   from the store (not read again); undefined when it was not read, or not found.
 * @returns the principal, or a sentence saying why it can no longer act.
 */
export async function resolvePrincipal(
  db: Knex,
  ref: PrincipalRef | undefined,
  automation?: Pick<Automation, 'id' | 'ownerId'>,
): Promise<Principal | string> {
  if (!ref) return 'the job records no principal to run as';
  if (ref.kind === 'operator') return { kind: 'operator' };
  const userId = ref.kind === 'user' ? ref.userId : ref.ownerId;
  const read = async (id: number) => (automation?.id === id ? automation : getAutomation(db, id));
  if (ref.kind === 'automation' && (await read(ref.automationId))?.ownerId !== ref.ownerId) {
    return `automation ${ref.automationId} no longer exists or no longer acts for user ${ref.ownerId}`;
  }
  const user = userId === null ? undefined : await getUser(db, userId);
  if (!user?.active) return `${describePrincipal(ref)} is no longer active`;
  return ref.kind === 'user' ? { kind: 'user', user } : { kind: 'automation', automationId: ref.automationId, owner: user };
}

/** Who an audit entry names: the user acting (an automation's maker), or nobody for the operator at the CLI. */
export function auditActor(actor: Actor): AuditActor {
  const user = rightsOf(actor);
  return user ? actorOf(user) : null;
}
