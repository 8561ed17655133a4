import { useEffect, useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { API, request } from '../api/client.ts';
import { useSessionState } from '../app/session.tsx';
import { Field } from '../components/Field.tsx';
import { AuthForm, SubmitButton } from '../components/Form.tsx';
import { ErrorNotice } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import { useSubmit } from '../hooks/useSubmit.ts';
import * as wire from '../api/contracts.ts';

/** Sign in with email and password; sends a fresh appliance to its first set-up. */
export function SignInPage() {
  const { session, notice, signIn } = useSessionState();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const setup = useApi(`${API}/setup`, undefined, wire.setupState);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submitting = useSubmit();
  const next = params.get('next') || '/';

  useEffect(() => {
    if (setup.data?.needed && setup.data.local) navigate('/setup', { replace: true });
  }, [setup.data, navigate]);

  if (session) return <Navigate to={next.startsWith('/') ? next : '/'} replace />;

  function submit(e: FormEvent) {
    e.preventDefault();
    void submitting.run(async () => {
      const answer = await request('/api/requestAuthToken', {
        answer: wire.tokenAnswer,
        method: 'POST',
        json: { email, password },
      });
      await signIn(answer.auth_token, answer.user_id);
    });
  }

  return (
    <AuthForm id="signin-title" title="Sign in to Flexsite" onSubmit={submit}>
      {notice && (
        <p className="notice info" role="status">
          {notice}
        </p>
      )}
      {setup.data?.needed && !setup.data.local && (
        <p className="notice info">
          This appliance has no users yet. Open this page on the machine itself (http://127.0.0.1) to create the first administrator.
        </p>
      )}
      <Field label="Email">
        <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} autoFocus />
      </Field>
      <Field label="Password">
        <input type="password" autoComplete="current-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
      </Field>
      <ErrorNotice error={submitting.error} />
      <SubmitButton busy={submitting.busy} busyLabel="Signing in…">
        Sign in
      </SubmitButton>
      <Link to="/forgot-password">Forgot your password?</Link>
      {setup.data?.needed && setup.data.local && <Link to="/setup">Set up this appliance</Link>}
    </AuthForm>
  );
}
