import { forbidden } from '../errors.ts';
import type { User } from '../store/users.ts';
import { rightsOf, type Actor } from './principal.ts';
import { mayGrantRole } from './roles.ts';

export type Permission = 'create-children' | 'read' | 'update' | 'delete';

/** What a permission is checked on. Sensors are judged by the account of their asset. */
export type AccessContext =
  | { kind: 'account'; id: number; consultancyAccountId: number | null }
  /** A user, with the roles they hold: an account-admin may change only users whose every role they could grant. */
  | { kind: 'user'; id: number; accountId: number; roles: string[] }
  | { kind: 'asset'; accountId: number | null; consultancyAccountId: number | null }
  | { kind: 'sensor'; accountId: number | null; consultancyAccountId: number | null }
  /** The audit log of an account, and of a user (in their account). */
  | { kind: 'account-audit'; id: number; consultancyAccountId: number | null }
  | { kind: 'user-audit'; id: number; accountId: number; consultancyAccountId: number | null }
  /** API 2.0's objects: an asset (a device) acted for by its account's members; a user changed by themselves. */
  | { kind: 'v2-asset'; accountId: number | null }
  | { kind: 'v2-user'; id: number };

const isMember = (u: User, accountId: number | null) => accountId !== null && u.account_id === accountId;
const isAccountAdmin = (u: User, accountId: number | null) => isMember(u, accountId) && u.roles.includes('account-admin');
const isConsultantOf = (u: User, consultancyAccountId: number | null) =>
  consultancyAccountId !== null && u.roles.includes('consultant') && u.account_id === consultancyAccountId;

/**
 * Decides one permission following the reference's access lists: admins may do everything,
 * admin-readers may read everything, everyone else per the object's rules.
 * @param actor the principal: a user, an automation (its maker's current rights) or the operator.
 * @param permission what the caller wants to do.
 * @param ctx the object it is done to.
 * @returns whether it is allowed.
 */
export function can(actor: Actor, permission: Permission, ctx: AccessContext): boolean {
  const user = rightsOf(actor);
  // The operator holds the store itself (see `Principal`).
  if (!user) return true;
  if (user.roles.includes('admin')) return true;
  if (permission === 'read' && user.roles.includes('admin-reader')) return true;
  switch (ctx.kind) {
    case 'account':
      if (permission === 'create-children') return isAccountAdmin(user, ctx.id);
      if (permission === 'read') return isMember(user, ctx.id) || isConsultantOf(user, ctx.consultancyAccountId);
      // 1.0 lets every member change the account; Flexsite only its admins (PATCH /accounts/<id>).
      if (permission === 'update') return isAccountAdmin(user, ctx.id);
      return false;
    case 'user':
      if (permission === 'read') return isMember(user, ctx.accountId);
      // Changing, deactivating, resetting or re-addressing a user who holds a role the caller could
      // not grant would let an account-admin take over a platform admin or a consultant.
      if (permission === 'update') {
        return user.id === ctx.id || (isAccountAdmin(user, ctx.accountId) && ctx.roles.every((r) => mayGrantRole(user, r)));
      }
      return false;
    case 'asset':
    case 'sensor':
      // Public objects (no account) are readable by every logged-in user and writable by admins only.
      if (ctx.accountId === null) return permission === 'read';
      if (permission === 'read') return isMember(user, ctx.accountId) || isConsultantOf(user, ctx.consultancyAccountId);
      if (permission === 'create-children') return isMember(user, ctx.accountId);
      if (permission === 'update') return ctx.kind === 'asset' ? isMember(user, ctx.accountId) : isAccountAdmin(user, ctx.accountId);
      return isAccountAdmin(user, ctx.accountId);
    // Audit logs (1.0): read by the account's admins and its consultancy's consultants; a user's also by the user.
    case 'account-audit':
      return permission === 'read' && (isAccountAdmin(user, ctx.id) || isConsultantOf(user, ctx.consultancyAccountId));
    case 'user-audit':
      return (
        permission === 'read' &&
        (user.id === ctx.id || isAccountAdmin(user, ctx.accountId) || isConsultantOf(user, ctx.consultancyAccountId))
      );
    case 'v2-asset':
      return isMember(user, ctx.accountId);
    case 'v2-user':
      return permission === 'update' && user.id === ctx.id;
  }
}

/**
 * What an account itself may use in its assets' stored flex configuration and in the jobs run on
 * them, whoever writes or runs them (a platform admin, a consultant, an automation): its own
 * sensors and assets, and public ones to read. Roles and consultancies never widen it, so a job
 * on an account's asset cannot read or write what a plain member of that account could not.
 * @param accountId the asset's account (null: a public asset, which uses public objects only).
 */
export function accountMay(accountId: number | null, permission: 'read' | 'create-children', ctx: ObjectAccess): boolean {
  if (ctx.accountId === accountId) return true;
  return permission === 'read' && ctx.accountId === null;
}

/** The access context of a sensor or an asset: what stored configuration and jobs name. */
export type ObjectAccess = Extract<AccessContext, { kind: 'sensor' | 'asset' }>;

/** Throws the 403 answer unless `can` allows it. */
export function authorize(actor: Actor, permission: Permission, ctx: AccessContext): void {
  if (!can(actor, permission, ctx)) throw forbidden();
}
