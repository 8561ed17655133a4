import type { Knex } from 'knex';

export interface User {
  id: number;
  email: string;
  username: string;
  active: boolean;
  timezone: string;
  account_id: number;
  last_login_at: number | null;
  last_seen_at: number | null;
  /** Role names, e.g. ['account-admin']. */
  roles: string[];
  roleIds: number[];
}

interface DbUser extends Omit<User, 'roles' | 'roleIds' | 'active'> {
  active: number | boolean;
  password_hash: string;
}

const columns = ['id', 'email', 'username', 'active', 'timezone', 'account_id', 'last_login_at', 'last_seen_at'];

/** A user row with its roles (in role id order). */
function userOf(r: DbUser, mine: { id: number; name: string }[]): User {
  return {
    id: r.id,
    email: r.email,
    username: r.username,
    active: Boolean(r.active),
    timezone: r.timezone,
    account_id: r.account_id,
    last_login_at: r.last_login_at === null ? null : Number(r.last_login_at),
    last_seen_at: r.last_seen_at === null ? null : Number(r.last_seen_at),
    roles: mine.map((x) => x.name),
    roleIds: mine.map((x) => x.id),
  };
}

async function withRoles(db: Knex, rows: DbUser[]): Promise<User[]> {
  if (!rows.length) return [];
  const roleRows = await db('user_role as ur')
    .join('role as r', 'r.id', 'ur.role_id')
    .whereIn(
      'ur.user_id',
      rows.map((r) => r.id),
    )
    .orderBy('r.id')
    .select<{ user_id: number; id: number; name: string }[]>('ur.user_id', 'r.id', 'r.name');
  return rows.map((r) =>
    userOf(
      r,
      roleRows.filter((x) => x.user_id === r.id),
    ),
  );
}

/**
 * @returns the user, or undefined. One statement, user and roles joined: every job and
 *   automation run resolves its principal's current rights with it.
 */
export async function getUser(db: Knex, id: number): Promise<User | undefined> {
  const rows = await db('user as u')
    .leftJoin('user_role as ur', 'ur.user_id', 'u.id')
    .leftJoin('role as r', 'r.id', 'ur.role_id')
    .where('u.id', id)
    .orderBy('r.id')
    .select<(DbUser & { role_id: number | null; role_name: string | null })[]>(
      ...columns.map((c) => `u.${c}`),
      'r.id as role_id',
      'r.name as role_name',
    );
  if (!rows.length) return undefined;
  const roles = rows.flatMap((r) => (r.role_id === null ? [] : [{ id: Number(r.role_id), name: r.role_name! }]));
  return userOf(rows[0], roles);
}

/** @returns the user with this email (case-insensitive) and the password hash, or undefined. */
export async function getUserWithHashByEmail(db: Knex, email: string): Promise<(User & { passwordHash: string }) | undefined> {
  const row = await db<DbUser>('user').whereRaw('lower(email) = ?', [email.toLowerCase()]).first();
  if (!row) return undefined;
  const [user] = await withRoles(db, [row]);
  return { ...user, passwordHash: row.password_hash };
}

/** @returns users of the accounts (all when undefined), active ones unless includeInactive. */
export async function listUsers(db: Knex, filter: { accountId?: number; includeInactive?: boolean } = {}): Promise<User[]> {
  const q = db('user').select<DbUser[]>(columns).orderBy('id');
  if (filter.accountId !== undefined) q.where({ account_id: filter.accountId });
  if (!filter.includeInactive) q.where({ active: true });
  return withRoles(db, await q);
}

/** @returns the user's password hash (it signs their set-password links), or undefined for an unknown user. */
export async function getPasswordHash(db: Knex, id: number): Promise<string | undefined> {
  return (await db<DbUser>('user').where({ id }).first('password_hash'))?.password_hash;
}

/** @returns how many active users hold the `admin` role, leaving out one user. */
export async function countActiveAdmins(db: Knex, exceptUserId: number): Promise<number> {
  const row = await db('user as u')
    .join('user_role as ur', 'ur.user_id', 'u.id')
    .join('role as r', 'r.id', 'ur.role_id')
    .where('r.name', 'admin')
    .where('u.active', true)
    .whereNot('u.id', exceptUserId)
    .countDistinct<{ n: number | string }[]>({ n: 'u.id' });
  return Number(row[0].n);
}

/** @returns whether any user exists (a fresh appliance has none until its first setup). */
export async function anyUser(db: Knex): Promise<boolean> {
  return Boolean(await db('user').first('id'));
}

/**
 * Finds another user holding this email (case-insensitive) or username.
 * @param except a user id to leave out (the user being edited).
 * @returns which of the two is taken, or undefined when both are free.
 */
export async function takenIdentity(
  db: Knex,
  props: { email?: string; username?: string; except?: number },
): Promise<'email' | 'username' | undefined> {
  if (!props.email && !props.username) return undefined;
  const q = db('user').andWhere((w) => {
    if (props.email) w.orWhereRaw('lower(email) = ?', [props.email.toLowerCase()]);
    if (props.username) w.orWhere({ username: props.username });
  });
  if (props.except !== undefined) q.whereNot({ id: props.except });
  const row = await q.first<{ email: string } | undefined>('email');
  if (!row) return undefined;
  return props.email && row.email.toLowerCase() === props.email.toLowerCase() ? 'email' : 'username';
}

/** @returns every role as {id, name}. */
export async function listRoles(db: Knex): Promise<{ id: number; name: string; description: string }[]> {
  return db('role').orderBy('id').select('id', 'name', 'description');
}

/** @returns whether the user chose their password (false: made up at creation or by a reset, known to nobody). */
export async function passwordChosen(db: Knex, id: number): Promise<boolean> {
  const row = await db('user').where({ id }).first<{ password_chosen: number | boolean } | undefined>('password_chosen');
  return Boolean(row?.password_chosen);
}
