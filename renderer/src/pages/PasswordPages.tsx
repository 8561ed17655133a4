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

/** A new password typed twice, and sending it: whether the two differ is checked before anything is sent. */
function useNewPassword() {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [differ, setDiffer] = useState<string[] | undefined>();
  /** @returns whether the two are the same, showing the message next to the repeat when not. */
  const check = () => {
    const problem = password === repeat ? undefined : ['The two passwords differ.'];
    setDiffer(problem);
    return !problem;
  };
  const clear = () => {
    setPassword('');
    setRepeat('');
  };
  const submitting = useSubmit();
  /** Sends the new password with `send`, once the two agree. */
  const submit = (e: FormEvent, send: (password: string) => Promise<unknown>) => {
    e.preventDefault();
    submitting.reset();
    if (check()) void submitting.run(() => send(password));
  };
  return { password, repeat, setPassword, setRepeat, differ, clear, submitting, submit };
}

/** The new password and its repeat; `errors` are the server's messages on the password. */
function NewPasswordFields({
  entry,
  errors,
  required = false,
}: {
  entry: ReturnType<typeof useNewPassword>;
  errors: string[] | undefined;
  required?: boolean;
}) {
  const inputs = [
    { label: 'New password', value: entry.password, change: entry.setPassword, errors, hint: 'At least 8 characters.' },
    { label: 'Repeat the new password', value: entry.repeat, change: entry.setRepeat, errors: entry.differ },
  ];
  return (
    <>
      {inputs.map((i) => (
        <Field key={i.label} label={i.label} errors={i.errors} hint={i.hint}>
          <input
            type="password"
            autoComplete="new-password"
            required={required}
            value={i.value}
            onChange={(e) => i.change(e.target.value)}
          />
        </Field>
      ))}
    </>
  );
}

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
  const entry = useNewPassword();
  const { submitting } = entry;
  const { fields } = submitting;
  const submit = (e: FormEvent) =>
    entry.submit(e, (password) => request(`${API}/password/set`, { method: 'POST', json: { token: params.get('token') ?? '', password } }));

  return (
    <AuthForm id="set-title" title="Choose your password" onSubmit={submit}>
      {submitting.saved ? (
        <OkNotice>
          Your password is set. <Link to="/signin">Sign in</Link>
        </OkNotice>
      ) : (
        <>
          <NewPasswordFields entry={entry} errors={fields.password} required />
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
  const [current, setCurrent] = useState('');
  const entry = useNewPassword();
  const { submitting } = entry;
  const { fields } = submitting;
  const submit = (e: FormEvent) =>
    entry.submit(e, async (password) => {
      await request(`${API}/users/${session.user.id}/password`, { method: 'PATCH', json: { current_password: current, password } });
      setCurrent('');
      entry.clear();
    });

  return (
    <section className="page" aria-labelledby="profile-title">
      <h1 id="profile-title">{session.user.username}</h1>
      <p className="muted">
        {session.user.email} · times shown in {session.user.timezone}
      </p>
      <form className="card grid-form" onSubmit={submit} aria-label="Change your password">
        <h2>Change your password</h2>
        <Field label="Current password" errors={fields.current_password}>
          <input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
        </Field>
        <NewPasswordFields entry={entry} errors={fields.password} />
        <FormError error={submitting.error} />
        <SaveBar saved={submitting.saved} savedText="Password changed.">
          <SubmitButton>Change password</SubmitButton>
        </SaveBar>
      </form>
    </section>
  );
}
