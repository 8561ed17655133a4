import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories, PASSWORD } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Passwords an operator can manage without the CLI: change one's own, an invitation link for a
 * new user, "forgot password" through the outbox; and the last active administrator is kept.
 */

let t: TestServer;
let f: ReturnType<typeof factories>;
let accountId: number;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
});
afterAll(() => t.close());

const login = (email: string, password: string) => t.request('POST', '/api/requestAuthToken', { json: { email, password } });
const outbox = () => {
  const file = path.join(t.dataDir, 'outbox.jsonl');
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { to: string; subject: string; body: string })
    : [];
};
const hashOf = async (id: number) => (await t.db('user').where({ id }).first<{ password_hash: string }>()).password_hash;

describe('changing your own password', () => {
  it('needs the current password, then the new one signs in', async () => {
    const { user, token } = await f.user({ accountId });
    const before = await hashOf(user.id);
    const wrong = await t.request('PATCH', `/api/v3_0/users/${user.id}/password`, {
      token,
      json: { current_password: 'not it', password: 'a new long password' },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.message.json).toEqual({ current_password: ['The current password does not match.'] });
    const short = await t.request('PATCH', `/api/v3_0/users/${user.id}/password`, {
      token,
      json: { current_password: PASSWORD, password: 'short' },
    });
    expect(short.status).toBe(422);
    expect(await hashOf(user.id)).toBe(before);
    const ok = await t.request('PATCH', `/api/v3_0/users/${user.id}/password`, {
      token,
      json: { current_password: PASSWORD, password: 'a new long password' },
    });
    expect(ok.status).toBe(200);
    expect((await login(user.email, 'a new long password')).status).toBe(200);
    expect((await login(user.email, PASSWORD)).status).toBe(401);
  });

  it("is refused for someone else's account, even to an account-admin", async () => {
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const { user } = await f.user({ accountId });
    const res = await t.request('PATCH', `/api/v3_0/users/${user.id}/password`, {
      token: admin.token,
      json: { current_password: PASSWORD, password: 'chosen for you' },
    });
    expect(res.status).toBe(403);
  });
});

describe('set-password links', () => {
  it('invites a new user without a password: the link is mailed and answered, works once, then is dead', async () => {
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const created = await t.request('POST', '/api/v3_0/users', {
      token: admin.token,
      json: { email: 'invited@example.com', username: 'invited', account_id: accountId },
    });
    expect(created.status).toBe(201);
    const mails = outbox().length;
    const res = await t.request('POST', `/api/v3_0/users/${created.body.id}/password-link`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(res.body.link).toMatch(new RegExp(`^http://[^/]+/set-password\\?token=${created.body.id}\\.\\d+\\.[\\w-]+$`));
    expect(Date.parse(res.body.expires_at) - Date.now()).toBeGreaterThan(71 * 3_600_000);
    const mail = outbox().slice(mails);
    expect(mail).toEqual([expect.objectContaining({ to: 'invited@example.com', subject: 'Set your Flexsite password' })]);
    expect(mail[0].body).toContain(res.body.link);

    const token = new URL(res.body.link).searchParams.get('token')!;
    const set = await t.request('POST', '/api/v3_0/password/set', { json: { token, password: 'my own password' } });
    expect(set.status).toBe(200);
    expect((await login('invited@example.com', 'my own password')).status).toBe(200);
    const again = await t.request('POST', '/api/v3_0/password/set', { json: { token, password: 'someone elses' } });
    expect(again.status).toBe(422);
    expect(again.body.message.json).toEqual({ token: ['This link is not valid (any more): ask for a new one.'] });
    expect((await login('invited@example.com', 'my own password')).status).toBe(200);
  });

  it('refuses a forged or tampered link, storing nothing', async () => {
    const { user } = await f.user({ accountId });
    const before = await hashOf(user.id);
    for (const token of [`${user.id}.${Date.now() + 3_600_000}.forged`, 'nonsense', `${user.id}.1.abc`]) {
      const res = await t.request('POST', '/api/v3_0/password/set', { json: { token, password: 'taken over!' } });
      expect(res.status).toBe(422);
    }
    expect(await hashOf(user.id)).toBe(before);
  });

  it("is refused for another account's user", async () => {
    const other = await f.account();
    const { user } = await f.user({ accountId: other.id });
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const mails = outbox().length;
    const res = await t.request('POST', `/api/v3_0/users/${user.id}/password-link`, { token: admin.token });
    expect(res.status).toBe(403);
    expect(outbox()).toHaveLength(mails);
  });

  it('mails a link on "forgot password" to an active user only, answering the same for an unknown address', async () => {
    const { user } = await f.user({ accountId });
    const mails = outbox().length;
    const unknown = await t.request('POST', '/api/v3_0/password/forgot', { json: { email: 'nobody@example.com' } });
    // Whoever asks chooses the Host header: the link must not point there.
    const known = await t.request('POST', '/api/v3_0/password/forgot', { json: { email: user.email }, headers: { Host: 'evil.example' } });
    expect(unknown.status).toBe(200);
    expect(known.status).toBe(200);
    expect(unknown.body).toEqual(known.body);
    const mail = outbox().slice(mails);
    expect(mail).toEqual([expect.objectContaining({ to: user.email, subject: 'A new Flexsite password' })]);
    const link = /http:\/\/\S+/.exec(mail[0].body)![0];
    expect(new URL(link).origin).toBe(t.url);
    const token = new URL(link).searchParams.get('token')!;
    expect((await t.request('POST', '/api/v3_0/password/set', { json: { token, password: 'remembered now' } })).status).toBe(200);
    expect((await login(user.email, 'remembered now')).status).toBe(200);
  });
});

describe('links behind a proxy', () => {
  it('point to FLEXSITE_PUBLIC_URL when the operator sets it', async () => {
    const proxied = await startTestServer({ FLEXSITE_PUBLIC_URL: 'https://flexsite.example.org/' });
    try {
      const { user } = await factories(proxied.db).user({ accountId: (await factories(proxied.db).account()).id });
      expect((await proxied.request('POST', '/api/v3_0/password/forgot', { json: { email: user.email } })).status).toBe(200);
      const mails = fs.readFileSync(path.join(proxied.dataDir, 'outbox.jsonl'), 'utf8').trim().split('\n');
      expect(JSON.parse(mails[mails.length - 1]).body).toMatch(/\nhttps:\/\/flexsite\.example\.org\/set-password\?token=\S+\n/);
    } finally {
      await proxied.close();
    }
  });
});

describe('the last active administrator', () => {
  it('cannot be deactivated, demoted or have the password reset; another admin can be', async () => {
    const site = await f.account();
    const admin = await f.user({ accountId: site.id, roles: ['admin'] });
    // Other tests' admins would count: they are deactivated here, so this one is the last.
    await t.db('user').whereNot({ id: admin.user.id }).update({ active: false });
    const accountAdmin = await f.user({ accountId: site.id, roles: ['account-admin'] });
    const refuse = async (res: { status: number; body: { message: string } }) => {
      expect(res.status).toBe(409);
      expect(res.body.message).toBe(`${admin.user.username} is the last active administrator: make another user an active admin first.`);
    };
    // An account-admin may not touch a platform admin at all (issue 20); the admin may not lock themselves out.
    for (const json of [{ active: false }, { flexmeasures_roles: [] }]) {
      expect((await t.request('PATCH', `/api/v3_0/users/${admin.user.id}`, { token: accountAdmin.token, json })).status).toBe(403);
    }
    await refuse(await t.request('PATCH', `/api/v3_0/users/${admin.user.id}/password-reset`, { token: admin.token }));
    expect((await t.db('user').where({ id: admin.user.id }).first()).active).toBeTruthy();
    expect((await login(admin.user.email, PASSWORD)).status).toBe(200);

    // With a second active admin, the first may go.
    const second = await f.user({ accountId: site.id, roles: ['admin'] });
    const off = await t.request('PATCH', `/api/v3_0/users/${admin.user.id}`, { token: second.token, json: { active: false } });
    expect(off.status).toBe(200);
    const last = await t.request('PATCH', `/api/v3_0/users/${second.user.id}/password-reset`, { token: second.token });
    expect(last.status).toBe(409);
    expect(last.body.message).toContain(`${second.user.username} is the last active administrator`);
  });
});

describe('no takeover through set-password links (issue 28)', () => {
  const auditOf = async (userId: number) =>
    (await t.db('audit_log').where({ affected_user_id: userId }).orderBy('id').select('event', 'active_user_id')).map(
      (r: { event: string; active_user_id: number | null }) => [r.event, r.active_user_id],
    );

  it('refuses a link for an active colleague who has a password (409), mailing and changing nothing', async () => {
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const { user: alice } = await f.user({ accountId });
    const before = await hashOf(alice.id);
    const mails = outbox().length;
    const res = await t.request('POST', `/api/v3_0/users/${alice.id}/password-link`, { token: admin.token });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      message:
        `${alice.username} has a password of their own: a set-password link would let whoever holds it sign in as them. ` +
        'Reset the password first (which signs them out and tells them), or let them use "forgot password".',
      status: 409,
    });
    expect(outbox()).toHaveLength(mails);
    expect(await hashOf(alice.id)).toBe(before);
    expect(await auditOf(alice.id)).toEqual([]);
    expect((await login(alice.email, PASSWORD)).status).toBe(200);
  });

  it('after an audited reset, which tells the user, a link works; the log names the admin who asked', async () => {
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const { user: alice } = await f.user({ accountId });
    const mails = outbox().length;
    expect((await t.request('PATCH', `/api/v3_0/users/${alice.id}/password-reset`, { token: admin.token })).status).toBe(200);
    const res = await t.request('POST', `/api/v3_0/users/${alice.id}/password-link`, { token: admin.token });
    expect(res.status).toBe(200);
    expect(
      outbox()
        .slice(mails)
        .map((m) => [m.to, m.subject]),
    ).toEqual([
      [alice.email, 'Your Flexsite password has been reset'],
      [alice.email, 'Set your Flexsite password'],
    ]);
    const token = new URL(res.body.link).searchParams.get('token')!;
    expect((await t.request('POST', '/api/v3_0/password/set', { json: { token, password: 'chosen by alice' } })).status).toBe(200);
    expect(await auditOf(alice.id)).toEqual([
      [`Password reset for user ${alice.username}`, admin.user.id],
      [`Set-password link made for user ${alice.username}`, admin.user.id],
      [`Password set for user ${alice.username} through a set-password link`, alice.id],
    ]);
    // Her password is her own again: no further link.
    expect((await t.request('POST', `/api/v3_0/users/${alice.id}/password-link`, { token: admin.token })).status).toBe(409);
  });

  it("an invitation's link is recorded as the admin's; another account's admin is refused (403)", async () => {
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const created = await t.request('POST', '/api/v3_0/users', {
      token: admin.token,
      json: { email: 'invitee28@example.com', username: 'invitee28', account_id: accountId },
    });
    const outsider = await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] });
    expect((await t.request('POST', `/api/v3_0/users/${created.body.id}/password-link`, { token: outsider.token })).status).toBe(403);
    expect((await t.request('POST', `/api/v3_0/users/${created.body.id}/password-link`, { token: admin.token })).status).toBe(200);
    expect(await auditOf(created.body.id)).toEqual([
      ['User invitee28 created', admin.user.id],
      ['Set-password link made for user invitee28', admin.user.id],
    ]);
  });

  it('records a change of e-mail address, by whom', async () => {
    const admin = await f.user({ accountId, roles: ['account-admin'] });
    const { user: bob } = await f.user({ accountId, email: 'bob28@example.com' });
    const res = await t.request('PATCH', `/api/v3_0/users/${bob.id}`, { token: admin.token, json: { email: 'elsewhere28@example.com' } });
    expect(res.status).toBe(200);
    expect(await auditOf(bob.id)).toEqual([['Updated: email, From: bob28@example.com, To: elsewhere28@example.com', admin.user.id]]);
    const outsider = await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] });
    const refused = await t.request('PATCH', `/api/v3_0/users/${bob.id}`, { token: outsider.token, json: { email: 'mine28@example.com' } });
    expect(refused.status).toBe(403);
    expect((await t.db('user').where({ id: bob.id }).first()).email).toBe('elsewhere28@example.com');
    expect(await auditOf(bob.id)).toHaveLength(1);
  });
});
