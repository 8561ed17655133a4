import { Navigate, Outlet, Route, Routes, useLocation } from 'react-router';
import type { ReactNode } from 'react';
import { Loading } from '../components/Status.tsx';
import { AccountPage } from '../pages/AccountPage.tsx';
import { AccountsPage } from '../pages/AccountsPage.tsx';
import { AddDevicePage } from '../pages/AddDevicePage.tsx';
import { AssetPage } from '../pages/AssetPage.tsx';
import { DashboardPage } from '../pages/DashboardPage.tsx';
import { JobPage } from '../pages/JobPage.tsx';
import { JobsPage } from '../pages/JobsPage.tsx';
import { SensorPage } from '../pages/SensorPage.tsx';
import { ForgotPasswordPage, ProfilePage, SetPasswordPage } from '../pages/PasswordPages.tsx';
import { SetupPage } from '../pages/SetupPage.tsx';
import { SignInPage } from '../pages/SignInPage.tsx';
import { SiteNowPage } from '../pages/SiteNowPage.tsx';
import { Layout } from './Layout.tsx';
import { useSessionState } from './session.tsx';

/** The frame of the pages behind the sign-in; anyone else is sent to sign in and brought back afterwards. */
function RequireSession() {
  const { session, restoring } = useSessionState();
  const location = useLocation();
  if (restoring) return <Loading what="Signing in" />;
  if (!session) return <Navigate to={`/signin?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return (
    <Layout>
      <Outlet />
    </Layout>
  );
}

/** Pages for admins and account-admins only. */
function RequireAccountAdmin({ children }: { children: ReactNode }) {
  const { session } = useSessionState();
  if (!session?.isAdmin && !session?.roles.includes('account-admin')) {
    return (
      <section className="page">
        <h1>Not allowed</h1>
        <p className="notice error" role="alert">
          You do not have access to this page. Accounts and users are managed by administrators and account administrators.
        </p>
      </section>
    );
  }
  return <>{children}</>;
}

/** The routes of the UI. */
export function App() {
  return (
    <Routes>
      <Route path="/signin" element={<SignInPage />} />
      <Route path="/setup" element={<SetupPage />} />
      <Route path="/forgot-password" element={<ForgotPasswordPage />} />
      <Route path="/set-password" element={<SetPasswordPage />} />
      <Route element={<RequireSession />}>
        <Route path="/" element={<DashboardPage />} />
        <Route path="/assets/:id" element={<AssetPage />} />
        <Route path="/assets/:id/now" element={<SiteNowPage />} />
        <Route path="/assets/:id/add-device" element={<AddDevicePage />} />
        <Route path="/sensors/:id" element={<SensorPage />} />
        <Route path="/jobs" element={<JobsPage />} />
        <Route path="/jobs/:id" element={<JobPage />} />
        <Route path="/profile" element={<ProfilePage />} />
        <Route
          path="/accounts"
          element={
            <RequireAccountAdmin>
              <AccountsPage />
            </RequireAccountAdmin>
          }
        />
        <Route
          path="/accounts/:id"
          element={
            <RequireAccountAdmin>
              <AccountPage />
            </RequireAccountAdmin>
          }
        />
        <Route
          path="*"
          element={
            <section className="page">
              <h1>Page not found</h1>
              <p>There is no page at this address.</p>
            </section>
          }
        />
      </Route>
    </Routes>
  );
}
