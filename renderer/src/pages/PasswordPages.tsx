import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { API, request } from '../api/client.ts';
import { ApiError } from '../api/errors.ts';
import { useSession } from '../app/session.tsx';
import { Field } from '../components/Field.tsx';
import { ErrorNotice } from '../components/Status.tsx';

/**
 * The password pages: "forgot password" and setting a password through a link (both without a
 * session), and changing one's own password (signed in).
 */

/** A new password typed twice: the message when they differ, checked before anything is sent. */
const mismatch = (password: string, repeat: string) => (password === repeat ? undefined : ['The two passwords differ.']);

/** Asks for a set-password link by email; the link goes to the mail outbox. */
export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    try {
      const answer = await request<{ message: string }>(`${API}/password/forgot`, { method: 'POST', json: { email } });
      setMessage(answer.message);
    } catch (err) {
      setError(err);
    }
  }

  return (
    <main id="main" className="auth-page">
      <form className="card auth" onSubmit={submit} aria-labelledby="forgot-title">
        <h1 id="forgot-title">Forgot your password?</h1>
        <p className="muted">
          Flexsite writes a link to set a new password to its mail outbox; an administrator of this appliance passes it on.
        </p>
        <Field label="Email">
          <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        {message && (
          <p className="notice ok" role="status">
            {message}
          </p>
        )}
        <ErrorNotice error={error} />
        <button type="submit" className="primary">
          Send a link
        </button>
        <Link to="/signin">Back to sign-in</Link>
      </form>
    </main>
  );
}

/** Sets a password through a set-password link (`?token=`). */
export function SetPasswordPage() {
  const [params] = useSearchParams();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const [differ, setDiffer] = useState<string[] | undefined>();
  const fields = error instanceof ApiError ? error.fields : {};

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const problem = mismatch(password, repeat);
    setDiffer(problem);
    if (problem) return;
    try {
      await request(`${API}/password/set`, { method: 'POST', json: { token: params.get('token') ?? '', password } });
      setDone(true);
    } catch (err) {
      setError(err);
    }
  }

  return (
    <main id="main" className="auth-page">
      <form className="card auth" onSubmit={submit} aria-labelledby="set-title">
        <h1 id="set-title">Choose your password</h1>
        {done ? (
          <p className="notice ok" role="status">
            Your password is set. <Link to="/signin">Sign in</Link>
          </p>
        ) : (
          <>
            <Field label="New password" errors={fields.password} hint="At least 8 characters.">
              <input type="password" autoComplete="new-password" required value={password} onChange={(e) => setPassword(e.target.value)} />
            </Field>
            <Field label="Repeat the new password" errors={differ}>
              <input type="password" autoComplete="new-password" required value={repeat} onChange={(e) => setRepeat(e.target.value)} />
            </Field>
            {fields.token && (
              <p className="notice error" role="alert">
                {fields.token.join(' ')} <Link to="/forgot-password">Ask for a new link</Link>
              </p>
            )}
            {!fields.token && !fields.password && <ErrorNotice error={error} />}
            <button type="submit" className="primary">
              Set password
            </button>
          </>
        )}
      </form>
    </main>
  );
}

/** The signed-in user's own page: change the password, giving the current one. */
export function ProfilePage() {
  const session = useSession();
  const [form, setForm] = useState({ current: '', password: '', repeat: '' });
  const [error, setError] = useState<unknown>(null);
  const [differ, setDiffer] = useState<string[] | undefined>();
  const [saved, setSaved] = useState(false);
  const fields = error instanceof ApiError ? error.fields : {};
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setSaved(false);
    const problem = mismatch(form.password, form.repeat);
    setDiffer(problem);
    if (problem) return;
    try {
      await request(`${API}/users/${session.user.id}/password`, {
        method: 'PATCH',
        json: { current_password: form.current, password: form.password },
      });
      setSaved(true);
      setForm({ current: '', password: '', repeat: '' });
    } catch (err) {
      setError(err);
    }
  }

  return (
    <section className="page" aria-labelledby="profile-title">
      <h1 id="profile-title">{session.user.username}</h1>
      <p className="muted">
        {session.user.email} · times shown in {session.user.timezone}
      </p>
      <form className="card grid-form" onSubmit={submit} aria-label="Change your password">
        <h2>Change your password</h2>
        <Field label="Current password" errors={fields.current_password}>
          <input type="password" autoComplete="current-password" value={form.current} onChange={set('current')} />
        </Field>
        <Field label="New password" errors={fields.password} hint="At least 8 characters.">
          <input type="password" autoComplete="new-password" value={form.password} onChange={set('password')} />
        </Field>
        <Field label="Repeat the new password" errors={differ}>
          <input type="password" autoComplete="new-password" value={form.repeat} onChange={set('repeat')} />
        </Field>
        {!Object.keys(fields).length && <ErrorNotice error={error} />}
        <div className="actions">
          <button type="submit" className="primary">
            Change password
          </button>
          {saved && (
            <span role="status" className="ok">
              Password changed.
            </span>
          )}
        </div>
      </form>
    </section>
  );
}
