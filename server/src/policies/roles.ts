import type { User } from '../store/users.ts';
import type { Permission } from './access.ts';
import { rightsOf, type Actor } from './principal.ts';

/**
 * Platform-wide roles, for the decisions that depend on the caller alone (object permissions
 * are in `access.ts`). The operator at the command line counts as a platform admin (see `Principal`).
 */

export const isAdmin = (actor: Actor) => rightsOf(actor)?.roles.includes('admin') ?? true;

/** Admins and admin-readers see every account's objects. */
export const readsEverything = (user: User) => isAdmin(user) || user.roles.includes('admin-reader');

export const isConsultant = (user: User) => user.roles.includes('consultant');

/** Whether the caller may put new assets into this account (null: public assets, admins only). */
export const mayOwnAssetsIn = (actor: Actor, accountId: number | null) =>
  isAdmin(actor) || (accountId !== null && accountId === rightsOf(actor)?.account_id);

/**
 * Only admins hand out the platform-wide roles, and `consultant`: it opens the client accounts of
 * the consultancy, which are not the account-admin's to open.
 */
const adminGranted = new Set(['admin', 'admin-reader', 'consultant']);
export const mayGrantRole = (actor: Actor, roleName: string) => isAdmin(actor) || !adminGranted.has(roleName);

/** Nobody, admins included, may switch off their own account or change their own roles. */
export const mayChangeStanding = (caller: Actor, target: User) => rightsOf(caller)?.id !== target.id;

/** A scheduler plugin runs code on the appliance: choosing one is for platform admins. */
export const mayChooseScheduler = isAdmin;

/** A webhook is a URL the server posts to, from inside the site's network: choosing one is for platform admins. */
export const mayChooseWebhook = isAdmin;

/**
 * A webhook URL often carries a secret (a token in its path or query): it is shown in full to
 * platform admins and the account's own account-admins, not to its members or consultants.
 */
export const maySeeWebhook = (user: User, accountId: number) =>
  isAdmin(user) || (user.account_id === accountId && user.roles.includes('account-admin'));

/**
 * Whether a change would take away an active administrator: deactivating them, a role list
 * without `admin`, or a password reset (a random password nobody knows).
 */
export const removesActiveAdmin = (target: User, change: { active?: boolean; roleNames?: string[]; reset?: boolean }) =>
  target.active &&
  isAdmin(target) &&
  (change.active === false || (change.roleNames !== undefined && !change.roleNames.includes('admin')) || change.reset === true);

/**
 * New accounts, and the account roles of any account, are for platform admins: 1.0 also lets a
 * consultancy's consultants create (client) accounts, which in Flexsite they could not fill with
 * users, and lets whoever may update an account set its roles, among them `Consultancy`.
 */
export const mayCreateAccounts = isAdmin;
export const maySetAccountRoles = isAdmin;

/**
 * Whether the caller may make `consultancyId` an account's consultancy (null: none), 1.0's rule:
 * admins any; others only their own account (or none), and only as a consultant or account-admin
 * of an account with the `Consultancy` account role — the role that lets them read the client.
 */
export const mayChooseConsultancy = (user: User, callerAccountRoles: string[], consultancyId: number | null) =>
  isAdmin(user) ||
  (callerAccountRoles.includes('Consultancy') &&
    (isConsultant(user) || user.roles.includes('account-admin')) &&
    (consultancyId === null || consultancyId === user.account_id));

/** API 2.0 lets admins alone create assets. */
export const mayCreateV2Assets = isAdmin;

/** Whose sensors a legacy address by name may find: the caller's account and public ones; every account for admins. */
export const namedSensorOwners = (user: User): 'all' | (number | null)[] => (isAdmin(user) ? 'all' : [user.account_id, null]);

/** Records without an account (system jobs): read by those who see everything, changed by admins. */
export const mayOnUnowned = (user: User, permission: Permission) => (permission === 'read' ? readsEverything(user) : isAdmin(user));
