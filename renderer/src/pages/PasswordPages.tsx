import { useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { API, request } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { Field } from '../components/Field.tsx';
import { AuthForm, FormError, SaveBar, SubmitButton } from '../components/Form.tsx';
import { ErrorNotice, OkNotice } from '../components/Status.tsx';
import { useSubmit } from '../hooks/useSubmit.ts';

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
  const submitting = useSubmit();

  function submit(e: FormEvent) {
    e.preventDefault();
    void submitting.run(async () => {
      const answer = await request<{ message: string }>(`${API}/password/forgot`, { method: 'POST', json: { email } });
      setMessage(answer.message);
    });
  }

  return (
    <AuthForm id="forgot-title" title="Forgot your password?" onSubmit={submit}>
      <p className="muted">
        Flexsite writes a link to set a new password to its mail outbox; an administrator of this appliance passes it on.
      </p>
      <Field label="Email">
        <input type="email" autoComplete="username" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      <OkNotice>{message}</OkNotice>
      <ErrorNotice error={submitting.error} />
      <SubmitButton>Send a link</SubmitButton>
      <Link to="/signin">Back to sign-in</Link>
    </AuthForm>
  );
}

/** Sets a password through a set-password link (`?token=`). */
export function SetPasswordPage() {
  const [params] = useSearchParams();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const submitting = useSubmit();
  const [differ, setDiffer] = useState<string[] | undefined>();
  const { fields } = submitting;

  function submit(e: FormEvent) {
    e.preventDefault();
    submitting.reset();
    const problem = mismatch(password, repeat);
    setDiffer(problem);
    if (problem) return;
    void submitting.run(() => request(`${API}/password/set`, { method: 'POST', json: { token: params.get('token') ?? '', password } }));
  }

  return (
    <AuthForm id="set-title" title="Choose your password" onSubmit={submit}>
      {submitting.saved ? (
        <OkNotice>
          Your password is set. <Link to="/signin">Sign in</Link>
        </OkNotice>
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
          {!fields.token && !fields.password && <ErrorNotice error={submitting.error} />}
          <SubmitButton>Set password</SubmitButton>
        </>
      )}
    </AuthForm>
  );
}

/** The signed-in user's own page: change the password, giving the current one. */
export function ProfilePage() {
  const session = useSession();
  const [form, setForm] = useState({ current: '', password: '', repeat: '' });
  const submitting = useSubmit();
  const [differ, setDiffer] = useState<string[] | undefined>();
  const { fields } = submitting;
  const set = (key: keyof typeof form) => (e: { target: { value: string } }) => setForm({ ...form, [key]: e.target.value });

  function submit(e: FormEvent) {
    e.preventDefault();
    submitting.reset();
    const problem = mismatch(form.password, form.repeat);
    setDiffer(problem);
    if (problem) return;
    void submitting.run(async () => {
      await request(`${API}/users/${session.user.id}/password`, {
        method: 'PATCH',
        json: { current_password: form.current, password: form.password },
      });
      setForm({ current: '', password: '', repeat: '' });
    });
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
        <FormError error={submitting.error} />
        <SaveBar saved={submitting.saved} savedText="Password changed.">
          <SubmitButton>Change password</SubmitButton>
        </SaveBar>
      </form>
    </section>
  );
}
