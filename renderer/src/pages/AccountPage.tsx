import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { API, request } from '../api/client.ts';
import type { Role, User } from '../api/types.ts';
import { useSession } from '../app/session.tsx';
import { Field } from '../components/Field.tsx';
import { Checklist } from '../components/Checklist.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { FoldedForm, FormError, SaveBar, SubmitButton } from '../components/Form.tsx';
import { Empty, ErrorNotice, Loading, OkNotice } from '../components/Status.tsx';
import { useApi } from '../hooks/useApi.ts';
import { useForm } from '../hooks/useForm.ts';
import { useSubmit } from '../hooks/useSubmit.ts';
import { formatTime } from '../lib/time.ts';
import * as wire from '../api/contracts.ts';

/** An account's overview: its assets, its users and their roles, with user management for its admins. */
export function AccountPage() {
  const { id } = useParams();
  const session = useSession();
  const account = useApi(`${API}/accounts/${id}`, undefined, wire.accountOverview);
  if (account.error) return <ErrorNotice error={account.error} />;
  if (!account.data) return <Loading what="Loading the account" />;
  const a = account.data;
  const manages = session.canAdminAccount(a.id);
  return (
    <article className="page" aria-labelledby="account-title">
      <div className="page-head">
        <h1 id="account-title">{a.name}</h1>
        <span className="muted">{a.account_roles.map((r) => r.name).join(', ')}</span>
      </div>
      <section className="card" aria-labelledby="account-assets">
        <h2 id="account-assets">Assets</h2>
        {a.assets.length === 0 ? (
          <Empty>No assets.</Empty>
        ) : (
          <ul className="plain">
            {a.assets.map((asset) => (
              <li key={asset.id}>
                <Link to={`/assets/${asset.id}`}>{asset.name}</Link>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section className="card" aria-labelledby="account-users">
        <h2 id="account-users">Users</h2>
        <UserTable users={a.users} roles={session.allRoles} manages={manages} onChanged={account.reload} />
        {manages && <NewUser accountId={a.id} roles={session.allRoles} onCreated={account.reload} />}
      </section>
    </article>
  );
}

const assignable = (roles: Role[], isAdmin: boolean) => roles.filter((r) => isAdmin || (r.name !== 'admin' && r.name !== 'admin-reader'));

function UserTable({ users, roles, manages, onChanged }: { users: User[]; roles: Role[]; manages: boolean; onChanged: () => void }) {
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [link, setLink] = useState<{ username: string; link: string } | null>(null);
  // One role editor at a time.
  const [editing, setEditing] = useState<number | null>(null);

  async function act(what: () => Promise<unknown>, done: string) {
    setError(null);
    setNotice(null);
    setLink(null);
    try {
      await what();
      setNotice(done);
      onChanged();
    } catch (err) {
      setError(err);
    }
  }

  return (
    <>
      <ErrorNotice error={error} />
      <OkNotice>{notice}</OkNotice>
      {link && <PasswordLink {...link} />}
      <DataTable
        columns={['User', 'Email', 'Roles', 'Active', 'Last login', manages && 'Actions']}
        rows={users}
        row={(u) => (
          <UserRow
            key={u.id}
            user={u}
            roles={roles}
            manages={manages}
            editing={editing === u.id}
            onEdit={(on) => setEditing(on ? u.id : null)}
            act={act}
            onLink={setLink}
          />
        )}
      />
    </>
  );
}

/** One user with, for those who manage the account, buttons for their roles, activity and password. */
function UserRow({
  user: u,
  roles,
  manages,
  editing,
  onEdit,
  act,
  onLink,
}: {
  user: User;
  roles: Role[];
  manages: boolean;
  /** Whether this user's role editor is open. */
  editing: boolean;
  onEdit: (open: boolean) => void;
  act: (what: () => Promise<unknown>, done: string) => Promise<void>;
  onLink: (link: { username: string; link: string }) => void;
}) {
  const session = useSession();
  const self = u.id === session.user.id;
  const roleNames =
    roles
      .filter((r) => u.flexmeasures_roles.includes(r.id))
      .map((r) => r.name)
      .join(', ') || '–';
  const patch = (json: Record<string, unknown>) => request(`${API}/users/${u.id}`, { method: 'PATCH', json });

  return (
    <tr className={u.active ? '' : 'inactive'}>
      <th scope="row">{u.username}</th>
      <td>{u.email}</td>
      <td>
        {editing ? (
          <RoleEditor
            user={u}
            roles={assignable(roles, session.isAdmin)}
            onCancel={() => onEdit(false)}
            onSave={(ids) => {
              onEdit(false);
              void act(() => patch({ flexmeasures_roles: ids }), `Roles of ${u.username} saved.`);
            }}
          />
        ) : (
          roleNames
        )}
      </td>
      <td>{u.active ? 'yes' : 'no'}</td>
      <td>{u.last_login_at ? formatTime(`${u.last_login_at}Z`, session.user.timezone) : 'never'}</td>
      {manages && (
        <td className="row-actions">
          {!self && (
            <button type="button" onClick={() => onEdit(true)} aria-label={`Edit roles of ${u.username}`}>
              Roles
            </button>
          )}
          {!self && (
            <button
              type="button"
              onClick={() => void act(() => patch({ active: !u.active }), `${u.username} ${u.active ? 'deactivated' : 'activated'}.`)}
              aria-label={`${u.active ? 'Deactivate' : 'Activate'} ${u.username}`}
            >
              {u.active ? 'Deactivate' : 'Activate'}
            </button>
          )}
          {!self && (
            <button
              type="button"
              aria-label={`Set-password link for ${u.username}`}
              onClick={() =>
                void act(async () => {
                  const made = await request<{ link: string }>(`${API}/users/${u.id}/password-link`, { method: 'POST' });
                  onLink({ username: u.username, link: made.link });
                }, `A set-password link for ${u.username} is in the mail outbox.`)
              }
            >
              Password link
            </button>
          )}
          {/* Your own password is changed on your profile: a reset here would sign you out with a password nobody knows. */}
          {self ? (
            <Link to="/profile">Change your password</Link>
          ) : (
            <button
              type="button"
              aria-label={`Reset the password of ${u.username}`}
              onClick={() => {
                if (!window.confirm(`Reset the password of ${u.username}? They are signed out everywhere and receive an email.`)) return;
                void act(() => request(`${API}/users/${u.id}/password-reset`, { method: 'PATCH' }), `Password of ${u.username} reset.`);
              }}
            >
              Reset password
            </button>
          )}
        </td>
      )}
    </tr>
  );
}

function RoleEditor({
  user,
  roles,
  onSave,
  onCancel,
}: {
  user: User;
  roles: Role[];
  onSave: (ids: number[]) => void;
  onCancel: () => void;
}) {
  const [ids, setIds] = useState(user.flexmeasures_roles);
  return (
    <Checklist className="role-editor" legend={`Roles of ${user.username}`} items={roles} chosen={ids} onChange={setIds}>
      <button type="button" className="primary" onClick={() => onSave(ids)}>
        Save roles
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </Checklist>
  );
}

function NewUser({ accountId, roles, onCreated }: { accountId: number; roles: Role[]; onCreated: () => void }) {
  const session = useSession();
  const { form, setForm, set } = useForm({ email: '', username: '', password: '' });
  const [roleIds, setRoleIds] = useState<number[]>([]);
  const submitting = useSubmit();
  const [created, setCreated] = useState<string | null>(null);
  const [invite, setInvite] = useState<{ username: string; link: string } | null>(null);
  const { fields } = submitting;

  function submit(e: FormEvent) {
    e.preventDefault();
    setCreated(null);
    setInvite(null);
    void submitting.run(async () => {
      const user = await request(`${API}/users`, {
        answer: wire.user,
        method: 'POST',
        json: { ...form, password: form.password || undefined, account_id: accountId, flexmeasures_roles: roleIds },
      });
      setCreated(`Created ${user.username}.`);
      // Without a password they could never sign in: they get a link to choose one.
      if (!form.password) {
        const made = await request<{ link: string }>(`${API}/users/${user.id}/password-link`, { method: 'POST' });
        setInvite({ username: user.username, link: made.link });
      }
      setForm({ email: '', username: '', password: '' });
      setRoleIds([]);
      onCreated();
    });
  }

  return (
    <FoldedForm summary="Add a user" label="New user" onSubmit={submit}>
      <Field label="Email" errors={fields.email}>
        <input type="email" required value={form.email} onChange={set('email')} />
      </Field>
      <Field label="Username" errors={fields.username}>
        <input required value={form.username} onChange={set('username')} />
      </Field>
      <Field label="Password" errors={fields.password} hint="At least 8 characters; leave empty to have it reset later.">
        <input type="password" autoComplete="new-password" value={form.password} onChange={set('password')} />
      </Field>
      <Checklist
        className="field"
        legend="Roles"
        items={assignable(roles, session.isAdmin)}
        chosen={roleIds}
        onChange={setRoleIds}
        errors={fields.flexmeasures_roles}
      />
      <FormError error={submitting.error} />
      <OkNotice>{created}</OkNotice>
      {invite && <PasswordLink {...invite} />}
      <SaveBar>
        <SubmitButton>Create user</SubmitButton>
      </SaveBar>
    </FoldedForm>
  );
}

/** A set-password link to pass on (it is in the mail outbox too), selectable for copying. */
function PasswordLink({ username, link }: { username: string; link: string }) {
  return (
    <div className="notice info password-link" role="status">
      <label>
        Send {username} this link to choose a password (valid once, for 72 hours):
        <input readOnly value={link} onFocus={(e) => e.target.select()} aria-label={`Set-password link for ${username}`} />
      </label>
    </div>
  );
}
