import { useEffect, useRef, useState, type ReactNode } from 'react';
import { NavLink, useLocation } from 'react-router';
import { useSession, useSessionState } from './session.tsx';

/** The frame of every signed-in page: a skip link, the navigation and who is signed in. */
export function Layout({ children }: { children: ReactNode }) {
  const session = useSession();
  const { signOut } = useSessionState();
  const managesAccounts = session.isAdmin || session.roles.includes('account-admin');
  const { pathname } = useLocation();
  const main = useRef<HTMLElement>(null);
  const shown = useRef(pathname);
  // On a phone the navigation folds behind a Menu button (CSS shows the button only there).
  const [menuOpen, setMenuOpen] = useState(false);
  // After moving to another page, keyboard and screen-reader users continue at its content.
  useEffect(() => {
    if (shown.current === pathname) return;
    shown.current = pathname;
    setMenuOpen(false);
    main.current?.focus();
  }, [pathname]);
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <NavLink to="/" className="brand">
          Flexsite
        </NavLink>
        <button
          type="button"
          className="menu-toggle"
          aria-expanded={menuOpen}
          aria-controls="main-menu"
          onClick={() => setMenuOpen((open) => !open)}
        >
          Menu
        </button>
        <nav aria-label="Main" id="main-menu" className={menuOpen ? 'open' : undefined}>
          <NavLink to="/" end>
            Dashboard
          </NavLink>
          <NavLink to="/jobs">Jobs</NavLink>
          {managesAccounts && <NavLink to="/accounts">Accounts</NavLink>}
        </nav>
        <div className={menuOpen ? 'who open' : 'who'}>
          <NavLink to="/profile" title={`${session.user.email}: your password`}>
            {session.user.username}
          </NavLink>
          <button type="button" className="link" onClick={() => signOut('You have signed out.')}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} ref={main}>
        {children}
      </main>
    </>
  );
}
