import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { API, request, setToken } from '../api/client.ts';
import type { Role, User } from '../api/types.ts';
import * as wire from '../api/contracts.ts';

const STORAGE_KEY = 'flexsite.session';
const EXPIRED = 'Your session has expired. Please sign in again.';

interface Stored {
  token: string;
  userId: number;
}

export interface Session {
  user: User;
  /** Role names of the signed-in user, e.g. ['account-admin']. */
  roles: string[];
  allRoles: Role[];
  isAdmin: boolean;
  /** Admins, and account-admins within their own account. */
  canAdminAccount: (accountId: number | null) => boolean;
  /** Members may edit the assets of their account and add sensors and data to them. */
  isMemberOf: (accountId: number | null) => boolean;
}

interface SessionState {
  session: Session | null;
  /** True while a stored token is being checked at start. */
  restoring: boolean;
  /** Why the user was signed out, shown on the sign-in page. */
  notice: string | null;
  signIn: (token: string, userId: number) => Promise<void>;
  signOut: (notice?: string) => void;
}

const SessionContext = createContext<SessionState | null>(null);

function readStored(): Stored | null {
  try {
    const value = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as Stored | null;
    return value && typeof value.token === 'string' && Number.isSafeInteger(value.userId) ? value : null;
  } catch {
    return null;
  }
}

async function loadSession(userId: number): Promise<Session> {
  const [user, allRoles] = await Promise.all([
    request(`${API}/users/${userId}`, { answer: wire.userAnswer }),
    request(`${API}/roles`, { answer: wire.roleList }),
  ]);
  const roles = allRoles.filter((r) => user.flexmeasures_roles.includes(r.id)).map((r) => r.name);
  const isAdmin = roles.includes('admin');
  return {
    user,
    roles,
    allRoles,
    isAdmin,
    canAdminAccount: (accountId) => isAdmin || (accountId === user.account_id && roles.includes('account-admin')),
    isMemberOf: (accountId) => isAdmin || accountId === user.account_id,
  };
}

/** Holds who is signed in. The token lives in sessionStorage: it ends with the browser tab. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => readStored() !== null);
  const [notice, setNotice] = useState<string | null>(null);

  const signOut = useCallback((why?: string) => {
    sessionStorage.removeItem(STORAGE_KEY);
    setToken(null, null);
    setSession(null);
    setNotice(why ?? null);
  }, []);

  const signIn = useCallback(
    async (token: string, userId: number) => {
      setToken(token, () => signOut(EXPIRED));
      const loaded = await loadSession(userId);
      sessionStorage.setItem(STORAGE_KEY, JSON.stringify({ token, userId } satisfies Stored));
      setNotice(null);
      setSession(loaded);
    },
    [signOut],
  );

  // Resume the session this tab stored; it only changes state once the server has answered.
  useEffect(() => {
    const stored = readStored();
    if (!stored) return;
    setToken(stored.token, () => signOut(EXPIRED));
    loadSession(stored.userId)
      .then(setSession, () => signOut(EXPIRED))
      .finally(() => setRestoring(false));
  }, [signOut]);

  const value = useMemo(() => ({ session, restoring, notice, signIn, signOut }), [session, restoring, notice, signIn, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

/** @returns the session state; only inside SessionProvider. */
export function useSessionState(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSessionState outside SessionProvider');
  return state;
}

/** @returns the signed-in session; only on pages behind the sign-in guard. */
export function useSession(): Session {
  const { session } = useSessionState();
  if (!session) throw new Error('useSession without a signed-in user');
  return session;
}
