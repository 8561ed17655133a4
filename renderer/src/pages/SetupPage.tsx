import type { FormEvent } from 'react';
import { Navigate } from 'react-router';
import { API, request } from '../api/client.ts';
import { useSessionState } from '../app/session.tsx';
import { Field } from '../components/Field.tsx';
import { AuthForm, FormError, SubmitButton } from '../components/Form.tsx';
import { ErrorNotice, Loading } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import { useForm } from '../hooks/useForm.ts';
import { useSubmit } from '../hooks/useSubmit.ts';
import * as wire from '../api/contracts.ts';

const browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** First start: the first account and its administrator, offered only on the machine itself. */
export function SetupPage() {
  const { session, signIn } = useSessionState();
  const status = useApi(`${API}/setup`, undefined, wire.setupState);
  const { form, set } = useForm({
    account_name: '',
    email: '',
    username: '',
    password: '',
    confirm: '',
    timezone: browserZone,
    site_name: '',
  });
  const submitting = useSubmit();

  if (session) return <Navigate to="/" replace />;
  if (status.loading) return <Loading what="Checking this appliance" />;
  if (status.data && !status.data.needed) return <Navigate to="/signin" replace />;

  const { fields } = submitting;
  const mismatch = form.confirm !== '' && form.confirm !== form.password;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (mismatch) return;
    void submitting.run(async () => {
      const { confirm: _confirm, site_name, ...body } = form;
      const json = site_name.trim() ? { ...body, site_name: site_name.trim() } : body;
      const created = await request(`${API}/setup`, { answer: wire.setupAnswer, method: 'POST', json });
      await signIn(created.auth_token, created.user.id);
    });
  }

  return (
    <AuthForm id="setup-title" title="Set up Flexsite" wide onSubmit={submit}>
      <ErrorNotice error={status.error} />
      {status.data && !status.data.local ? (
        <p className="notice error" role="alert">
          The first administrator can only be created on the machine Flexsite runs on. Open http://127.0.0.1 there.
        </p>
      ) : (
        <>
          <p>This appliance has no users yet. Create your site's account and its first administrator.</p>
          <Field label="Account name" errors={fields.account_name}>
            <input required value={form.account_name} onChange={set('account_name')} autoFocus />
          </Field>
          <Field label="Administrator email" errors={fields.email}>
            <input type="email" required autoComplete="username" value={form.email} onChange={set('email')} />
          </Field>
          <Field label="Username" errors={fields.username}>
            <input required value={form.username} onChange={set('username')} />
          </Field>
          <Field label="Password" errors={fields.password} hint="At least 8 characters.">
            <input type="password" required minLength={8} autoComplete="new-password" value={form.password} onChange={set('password')} />
          </Field>
          <Field label="Repeat the password" errors={mismatch ? ['The passwords differ.'] : undefined}>
            <input type="password" required autoComplete="new-password" value={form.confirm} onChange={set('confirm')} />
          </Field>
          <Field label="Time zone" errors={fields.timezone} hint="The site's: its devices' sensors are made in it.">
            <input value={form.timezone} onChange={set('timezone')} />
          </Field>
          <Field label="Site name" errors={fields.site_name} hint="Optional: the site your devices will be added under.">
            <input value={form.site_name} onChange={set('site_name')} />
          </Field>
          <FormError error={submitting.error} />
          <SubmitButton busy={submitting.busy} busyLabel="Creating…" disabled={mismatch}>
            Create account and administrator
          </SubmitButton>
        </>
      )}
    </AuthForm>
  );
}
