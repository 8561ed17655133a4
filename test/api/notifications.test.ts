import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let token: string;
let adminEmail: string;
let accountId: number;
let stranger: string;
let platformAdmin: string;

/** A local webhook receiver: records every request; `/moved` answers a redirect to `/target`. */
const received: { path: string; body: Record<string, unknown> }[] = [];
let receiver: http.Server;
let receiverUrl: string;

const outbox = (): { to: string; subject: string; body: string }[] => {
  const file = path.join(t.dataDir, 'outbox.jsonl');
  return fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l))
    : [];
};
const list = (query: Record<string, string> = {}, as = token) => t.request('GET', '/api/v3_0/notifications', { token: as, query });

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: text ? JSON.parse(text) : {} });
      if (req.url === '/moved') res.writeHead(307, { Location: '/target' }).end();
      else res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  const admin = await f.user({ accountId, roles: ['account-admin'] });
  token = admin.token;
  adminEmail = admin.user.email;
  stranger = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).token;
  platformAdmin = (await f.user({ accountId: (await f.account()).id, roles: ['admin'] })).token;
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => receiver.close(resolve));
});

describe('notification settings', () => {
  const patch = (body: unknown, as = platformAdmin, id = accountId) =>
    t.request('PATCH', `/api/v3_0/accounts/${id}/notification-settings`, { token: as, json: body });

  it('refuse URLs that are not http(s) or carry credentials, and callers who are not platform admins', async () => {
    for (const [url, message] of [
      ['ftp://example.com/hook', 'Only http and https URLs are allowed.'],
      ['https://user:secret@example.com/hook', 'The URL may not contain credentials.'],
      ['not a url', 'Not a valid URL.'],
    ]) {
      const res = await patch({ webhook_url: url });
      expect(res.status).toBe(422);
      expect(res.body.message).toEqual({ json: { webhook_url: [message] } });
    }
    const member = (await f.user({ accountId })).token;
    // The account's own admin included: the URL is the deployment's choice.
    for (const as of [member, token, stranger]) expect((await patch({ webhook_url: `${receiverUrl}/hook` }, as)).status).toBe(403);
    expect(await t.db('notification_setting').where({ account_id: accountId })).toEqual([]);
  });

  it('store the webhook URL of the account', async () => {
    const res = await patch({ webhook_url: `${receiverUrl}/hook` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ webhook_url: `${receiverUrl}/hook` });
    const read = await t.request('GET', `/api/v3_0/accounts/${accountId}/notification-settings`, { token });
    expect(read.body).toEqual({ webhook_url: `${receiverUrl}/hook` });
    expect((await t.request('GET', `/api/v3_0/accounts/${accountId}/notification-settings`, { token: stranger })).status).toBe(403);
  });

  it("show the URL in full to the account's admins only: members and consultants see where, not its secret (issue 28)", async () => {
    const consultancy = await f.account();
    const client = (await f.account({ consultancyAccountId: consultancy.id })).id;
    const secretUrl = 'https://hooks.example.org/services/T000/B000/s3cr3t?token=abc';
    expect((await patch({ webhook_url: secretUrl }, platformAdmin, client)).status).toBe(200);
    const read = async (as: string) => t.request('GET', `/api/v3_0/accounts/${client}/notification-settings`, { token: as });
    const clientAdmin = (await f.user({ accountId: client, roles: ['account-admin'] })).token;
    for (const as of [clientAdmin, platformAdmin]) expect((await read(as)).body).toEqual({ webhook_url: secretUrl });
    const member = (await f.user({ accountId: client })).token;
    const consultant = (await f.user({ accountId: consultancy.id, roles: ['consultant'] })).token;
    for (const as of [member, consultant]) {
      const res = await read(as);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ webhook_url: 'https://hooks.example.org/…' });
    }
    // Another account's admin reads nothing of it.
    expect((await read(stranger)).status).toBe(403);
    const account = await t.request('GET', `/api/v3_0/accounts/${client}`, { token: member });
    expect(JSON.stringify(account.body)).not.toContain('s3cr3t');
  });
});

describe('attention', () => {
  it('raises one notification for a stale sensor, mailed and posted to the webhook', async () => {
    const asset = await f.asset({ accountId, type: 'building', name: 'Home' });
    const meter = await f.sensor({
      assetId: asset.id,
      unit: 'kW',
      resolutionMinutes: 15,
      name: 'grid meter',
      timezone: 'Europe/Amsterdam',
    });
    const posted = await t.request('POST', `/api/v3_0/sensors/${meter.id}/data`, {
      token,
      json: { values: [1, 2, 3, 4], start: '2026-06-01T00:00:00Z', duration: 'PT1H', unit: 'kW' },
    });
    expect(posted.status).toBe(200);
    // The last event ends at 01:00; stale beyond twice 15 minutes, i.e. after 01:30.
    expect(await t.server.attention.checkStale(Date.parse('2026-06-01T01:30:00Z'))).toBe(0);
    expect(await t.server.attention.checkStale(Date.parse('2026-06-01T01:31:00Z'))).toBe(1);
    // The same stale spell raises nothing more.
    expect(await t.server.attention.checkStale(Date.parse('2026-06-01T02:00:00Z'))).toBe(0);

    const res = await list();
    expect(res.status).toBe(200);
    const stale = res.body.filter((n: { kind: string }) => n.kind === 'sensor-stale');
    expect(stale).toEqual([
      {
        id: expect.any(Number),
        account_id: accountId,
        kind: 'sensor-stale',
        subject: `sensor-stale:${meter.id}:${Date.parse('2026-06-01T00:45:00Z')}`,
        // Named by its device and name, in the site's zone: 01:00 UTC is 03:00 in Amsterdam in June (CEST, UTC+2).
        message: 'Home grid meter has had no data since 2026-06-01 03:00 Europe/Amsterdam; it counts as stale after 30 min without data.',
        sensor_id: meter.id,
        sensor_name: 'Home grid meter',
        asset_id: asset.id,
        timezone: 'Europe/Amsterdam',
        job_id: null,
        created_at: '2026-06-01T01:31:00.000Z',
        acknowledged_at: null,
        acknowledged_by: null,
      },
    ]);
    expect(outbox().filter((m) => m.subject === 'Flexsite: A sensor went stale')).toEqual([
      { at: expect.any(String), to: adminEmail, subject: 'Flexsite: A sensor went stale', body: stale[0].message },
    ]);
    // Webhooks are posted by the outbox, on its own clock.
    await t.server.webhooks.tick(Date.now());
    expect(received.filter((r) => r.body.kind === 'sensor-stale')).toEqual([{ path: '/hook', body: stale[0] }]);
  });

  it('raises one notification for a failed schedule, mailed and posted to the webhook', async () => {
    const asset = await f.asset({ accountId, type: 'battery' });
    const battery = await f.sensor({ assetId: asset.id, unit: 'MW', resolutionMinutes: 15 });
    // A price sensor without prices: the job fails for unknown prices.
    const prices = await f.sensor({ assetId: asset.id, unit: 'EUR/MWh', resolutionMinutes: 60 });
    const trigger = await t.request('POST', `/api/v3_0/sensors/${battery.id}/schedules/trigger`, {
      token,
      json: {
        start: '2026-06-02T00:00:00Z',
        duration: 'PT1H',
        'flex-model': { 'soc-at-start': 0, 'soc-unit': 'MWh', 'soc-min': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
        'flex-context': { 'consumption-price-sensor': prices.id },
      },
    });
    expect(trigger.status).toBe(200);
    const jobId = trigger.body.schedule as string;
    const done = await waitForSchedule(t, token, battery.id, jobId);
    expect(done.body.message).toMatch(/UnknownPricesException/);

    const failed = (await list()).body.filter((n: { kind: string }) => n.kind === 'schedule-failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ account_id: accountId, subject: `job:${jobId}`, job_id: jobId, sensor_id: battery.id });
    // Named by its device and name, the reason without the exception's name.
    expect(failed[0].message).toMatch(new RegExp(`^The schedule of ${asset.name} ${battery.name} failed: Prices unknown`));
    expect(failed[0].message).not.toMatch(/Exception|sensor \d/);
    expect(outbox().filter((m) => m.subject === 'Flexsite: A schedule failed')).toEqual([
      { at: expect.any(String), to: adminEmail, subject: 'Flexsite: A schedule failed', body: failed[0].message },
    ]);
    // Webhooks are posted by the outbox, on its own clock.
    await t.server.webhooks.tick(Date.now());
    expect(received.filter((r) => r.body.kind === 'schedule-failed')).toEqual([{ path: '/hook', body: failed[0] }]);
  });

  it('lists per account and acknowledges', async () => {
    expect((await list({ account_id: String(accountId) }, stranger)).status).toBe(403);
    const [first] = (await list()).body;
    expect((await t.request('POST', `/api/v3_0/notifications/${first.id}/acknowledge`, { token: stranger })).status).toBe(403);
    expect((await t.request('POST', '/api/v3_0/notifications/999999/acknowledge', { token })).status).toBe(404);
    const ack = await t.request('POST', `/api/v3_0/notifications/${first.id}/acknowledge`, { token });
    expect(ack.status).toBe(200);
    expect(ack.body).toMatchObject({ id: first.id, acknowledged_at: expect.any(String), acknowledged_by: expect.any(Number) });
    const open = (await list({ unacknowledged: 'true' })).body;
    expect(open.map((n: { id: number }) => n.id)).not.toContain(first.id);
    expect(open).toHaveLength(1);
    const row = await t.db('notification').where({ id: first.id }).first();
    expect(row.acknowledged_at).not.toBeNull();
    expect((await t.request('GET', '/api/v3_0/notifications')).status).toBe(401);
  });

  it('never follows a redirect from the webhook', async () => {
    const other = (await f.account()).id;
    await f.user({ accountId: other, roles: ['account-admin'] });
    const set = await t.request('PATCH', `/api/v3_0/accounts/${other}/notification-settings`, {
      token: platformAdmin,
      json: { webhook_url: `${receiverUrl}/moved` },
    });
    expect(set.status).toBe(200);
    const asset = await f.asset({ accountId: other, type: 'building' });
    const meter = await f.sensor({ assetId: asset.id, unit: 'kW', resolutionMinutes: 60 });
    await f.beliefs(meter.id, Date.parse('2026-07-01T00:00:00Z'), 3600_000, [1], Date.parse('2026-07-01T01:00:00Z'));
    expect(await t.server.attention.checkStale(Date.parse('2026-07-01T04:00:00Z'))).toBe(1);
    // Webhooks are posted by the outbox, on its own clock.
    await t.server.webhooks.tick(Date.now());
    expect(received.filter((r) => r.path === '/moved')).toHaveLength(1);
    expect(received.filter((r) => r.path === '/target')).toHaveLength(0);
  });

  it('raises a fallback for an infeasible schedule, and a missed target for the fallback that misses it', async () => {
    const market = await f.asset({ accountId: null, type: 'transmission zone' });
    const prices = await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 });
    await f.beliefs(prices.id, Date.parse('2026-06-03T00:00:00Z'), 3600_000, [50, 60], Date.parse('2026-06-02T00:00:00Z'));
    const shed = await f.asset({ accountId, type: 'battery', name: 'Shed battery' });
    const battery = await f.sensor({ assetId: shed.id, name: 'power', unit: 'MW', resolutionMinutes: 15 });
    // 4 MWh in one hour at 1 MW cannot be reached: infeasible, then the fallback charges 1 MWh.
    const trigger = await t.request('POST', `/api/v3_0/sensors/${battery.id}/schedules/trigger`, {
      token,
      json: {
        start: '2026-06-03T00:00:00Z',
        duration: 'PT1H',
        'flex-model': {
          'soc-at-start': 0,
          'soc-unit': 'MWh',
          'soc-max': 5,
          'soc-targets': [{ value: 4, datetime: '2026-06-03T01:00:00Z' }],
          'power-capacity': '1 MW',
        },
        'flex-context': { 'consumption-price-sensor': prices.id },
      },
    });
    const jobId = trigger.body.schedule as string;
    const served = await waitForSchedule(t, token, battery.id, jobId);
    expect(served.body.scheduler_info).toEqual({ scheduler: 'StorageFallbackScheduler' });
    const fallbackId = (await t.server.services.jobs.get(jobId))!.fallbackJobId;
    const mine = (await list()).body.filter((n: { job_id: string | null }) => n.job_id === jobId || n.job_id === fallbackId);
    expect(mine.map((n: { kind: string; job_id: string }) => [n.kind, n.job_id]).sort()).toEqual([
      ['schedule-fallback', jobId],
      ['target-missed', fallbackId],
    ]);
    // The device by its asset's and sensor's names, as the screen shows it.
    expect(mine.find((n: { kind: string }) => n.kind === 'target-missed').message).toBe(
      'The schedule of Shed battery power misses a state-of-charge target of Shed battery power.',
    );
    // Webhooks are posted by the outbox, on its own clock.
    await t.server.webhooks.tick(Date.now());
    expect(received.filter((r) => r.body.job_id === jobId || r.body.job_id === fallbackId)).toHaveLength(2);
  });

  it('raises one notification when an automation run fails, and one per automation while it keeps failing', async () => {
    const owner = await f.user({ accountId, roles: ['account-admin'] });
    const asset = await f.asset({ accountId, type: 'building' });
    const load = await f.sensor({ assetId: asset.id, unit: 'kW', resolutionMinutes: 15 });
    const made = await t.request('POST', `/api/v3_0/assets/${asset.id}/automations`, {
      token: owner.token,
      json: { name: 'nightly', cron: '0 3 * * *', forecast_sensor_ids: [load.id] },
    });
    expect(made.status).toBe(201);
    // Its maker leaves: the run fails, as it must not act for someone who no longer may.
    await t.db('user').where({ id: owner.user.id }).update({ active: false });
    expect(await t.server.automations.tick(Date.parse('2027-01-02T04:00:00Z'))).toBe(1);
    const [job] = await t.db('job').where({ queue: 'automation' });
    await t.server.services.jobs.settled(job.id, 20_000);
    const failed = (await list()).body.filter((n: { kind: string }) => n.kind === 'automation-failed');
    expect(failed).toEqual([
      expect.objectContaining({
        subject: `automation-failed:${made.body.id}`,
        job_id: job.id,
        message: `Automation 'nightly' failed: the user who made automation ${made.body.id} (id ${owner.user.id}) is no longer active; nothing was run.`,
      }),
    ]);
    expect(outbox().filter((m) => m.body === failed[0].message)).toEqual([
      { at: expect.any(String), to: adminEmail, subject: 'Flexsite: An automation failed', body: failed[0].message },
    ]);

    // One that runs nothing succeeds while its maker is active, and fails while they are not.
    await t.db('user').where({ id: owner.user.id }).update({ active: true });
    const quiet = await t.request('POST', `/api/v3_0/assets/${asset.id}/automations`, {
      token: owner.token,
      json: { name: 'quiet', cron: '0 3 * * *' },
    });
    expect(quiet.status).toBe(201);
    await t.db('user').where({ id: owner.user.id }).update({ active: false });
    const runOn = async (day: string) => {
      await t.server.automations.tick(Date.parse(`${day}T04:00:00Z`));
      const run = (await t.db('job').where({ queue: 'automation' }).select('id', 'args')).filter(
        (j: { args: string }) =>
          JSON.parse(j.args).automationId === quiet.body.id && JSON.parse(j.args).dueMs === Date.parse(`${day}T03:00:00Z`),
      )[0];
      await t.server.services.jobs.settled(run.id, 20_000);
      return (await t.server.services.jobs.get(run.id))!.status;
    };
    const spells = async () =>
      (await list()).body.filter((n: { subject: string }) => n.subject.startsWith(`automation-failed:${quiet.body.id}`));
    await t
      .db('automation')
      .where({ id: quiet.body.id })
      .update({ last_due: Date.parse('2027-01-02T03:00:00Z') });
    for (const day of ['2027-01-03', '2027-01-04', '2027-01-05']) expect(await runOn(day)).toBe('failed');
    expect(await spells()).toHaveLength(1);
    await t.db('user').where({ id: owner.user.id }).update({ active: true });
    expect(await runOn('2027-01-06')).toBe('finished');
    expect(await spells()).toHaveLength(1);
    await t.db('user').where({ id: owner.user.id }).update({ active: false });
    expect(await runOn('2027-01-07')).toBe('failed');
    expect(await runOn('2027-01-08')).toBe('failed');
    const both = await spells();
    expect(both).toHaveLength(2);
    expect(outbox().filter((m) => both.some((n: { message: string }) => n.message === m.body))).toHaveLength(2);
  });

  it('raises a warning for a schedule that breaches a relaxed capacity', async () => {
    const battery = await f.sensor({
      assetId: (await f.asset({ accountId, type: 'battery', name: 'Home battery' })).id,
      unit: 'MW',
      resolutionMinutes: 60,
      name: 'power',
    });
    const batteryName = 'Home battery power';
    // 2 MWh in two hours needs 1 MW, above the 0.5 MW consumption capacity, which may be breached.
    const trigger = await t.request('POST', `/api/v3_0/sensors/${battery.id}/schedules/trigger`, {
      token,
      json: {
        start: '2026-06-04T00:00:00Z',
        duration: 'PT2H',
        'flex-model': {
          'soc-at-start': '0 MWh',
          'soc-min': '0 MWh',
          'soc-max': '10 MWh',
          'power-capacity': '1 MW',
          'consumption-capacity': '0.5 MW',
          'soc-targets': [{ datetime: '2026-06-04T02:00:00Z', value: '2 MWh' }],
        },
        'flex-context': { 'consumption-price': '100 EUR/MWh', 'relax-constraints': true, 'relax-capacity-constraints': true },
      },
    });
    expect(trigger.status).toBe(200);
    const jobId = trigger.body.schedule as string;
    await t.server.services.jobs.settled(jobId, 30_000);
    const mine = (await list()).body.filter((n: { job_id: string | null }) => n.job_id === jobId);
    expect(mine).toEqual([
      expect.objectContaining({
        kind: 'schedule-warnings',
        message: `The schedule of ${batteryName} breaches soft constraints: consumption-capacity.`,
      }),
    ]);
  });

  it('raises one notification naming the warning for a schedule that finished with warnings', async () => {
    const market = await f.asset({ accountId, type: 'transmission zone', name: 'NL' });
    const prices = await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60, name: 'day-ahead prices' });
    // Prices for the first of the schedule's two hours only: the job extends them, and says so.
    await f.beliefs(prices.id, Date.parse('2026-06-05T00:00:00Z'), 3600_000, [40], Date.parse('2026-06-04T12:00:00Z'));
    const battery = await f.sensor({
      assetId: (await f.asset({ accountId, type: 'battery', name: 'Home battery' })).id,
      unit: 'MW',
      resolutionMinutes: 60,
      name: 'power',
    });
    const batteryName = 'Home battery power';
    const body = {
      start: '2026-06-05T00:00:00Z',
      duration: 'PT2H',
      'flex-model': { 'soc-at-start': '1 MWh', 'soc-min': '0 MWh', 'soc-max': '2 MWh', 'power-capacity': '1 MW' },
      'flex-context': { 'consumption-price-sensor': prices.id },
    };
    const trigger = () => t.request('POST', `/api/v3_0/sensors/${battery.id}/schedules/trigger`, { token, json: body });
    const jobId = (await trigger()).body.schedule as string;
    await t.server.services.jobs.settled(jobId, 30_000);
    const job = await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token });
    expect(job.body).toMatchObject({ status: 'finished', warnings: [expect.objectContaining({ code: 'input-extended' })] });
    // Asked again, the same job answers: still one notification.
    expect((await trigger()).body.schedule).toBe(jobId);
    const mine = (await list()).body.filter((n: { job_id: string | null }) => n.job_id === jobId);
    expect(mine).toEqual([
      expect.objectContaining({
        kind: 'schedule-warnings',
        sensor_id: battery.id,
        // The warning in its words, the price sensor named instead of numbered.
        message: `The schedule of ${batteryName} finished with warnings. Prices of NL day-ahead prices do not cover the whole schedule; extended with the last known price forwards.`,
      }),
    ]);
    expect(outbox().filter((m) => m.body === mine[0].message)).toEqual([expect.objectContaining({ to: adminEmail })]);
    // Another account sees none of it.
    expect((await list({}, stranger)).body.filter((n: { job_id: string | null }) => n.job_id === jobId)).toEqual([]);
  });
});

describe('a webhook receiver that stalls', () => {
  it('holds no job: the next job runs at once, and the outbox posts the notification on a retry once the receiver answers', async () => {
    let stalling = true;
    const held: http.ServerResponse[] = [];
    const got: Record<string, unknown>[] = [];
    const slow = http.createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        if (stalling) held.push(res);
        else {
          got.push(JSON.parse(text));
          res.writeHead(204).end();
        }
      });
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    try {
      const account = (await f.account()).id;
      const admin = await f.user({ accountId: account, roles: ['account-admin'] });
      const set = await t.request('PATCH', `/api/v3_0/accounts/${account}/notification-settings`, {
        token: platformAdmin,
        json: { webhook_url: `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hook` },
      });
      expect(set.status).toBe(200);
      const schedule = async (as: string, owner: number, flexContext: Record<string, unknown>) => {
        const battery = await f.sensor({
          assetId: (await f.asset({ accountId: owner, type: 'battery' })).id,
          unit: 'MW',
          resolutionMinutes: 15,
        });
        const trigger = await t.request('POST', `/api/v3_0/sensors/${battery.id}/schedules/trigger`, {
          token: as,
          json: {
            start: '2026-06-05T00:00:00Z',
            duration: 'PT1H',
            'flex-model': { 'soc-at-start': 0, 'soc-unit': 'MWh', 'soc-min': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
            'flex-context': flexContext,
          },
        });
        expect(trigger.status).toBe(200);
        return waitForSchedule(t, as, battery.id, trigger.body.schedule as string);
      };
      // A price sensor without prices: this account's schedule fails and raises a notification for the stalling webhook.
      const noPrices = await f.sensor({ assetId: (await f.asset({ accountId: account })).id, unit: 'EUR/MWh', resolutionMinutes: 60 });
      expect((await schedule(admin.token, account, { 'consumption-price-sensor': noPrices.id })).body.message).toMatch(/UnknownPrices/);
      // Another account's schedule runs right after and finishes while the notification is still undelivered.
      expect((await schedule(token, accountId, { 'consumption-price': '30 EUR/MWh' })).status).toBe(200);
      const [notification] = (await list({}, admin.token)).body;
      expect(notification).toMatchObject({ kind: 'schedule-failed', account_id: account });
      expect(got).toEqual([]);
      expect(await t.db('webhook_delivery').where({ notification_id: notification.id })).toHaveLength(1);

      // The outbox meets the stalling receiver: it gives up after its short time limit and tries again later.
      await t.server.webhooks.tick(Date.now());
      expect(held).toHaveLength(1);
      expect(await t.db('webhook_delivery').where({ notification_id: notification.id }).first('attempts')).toEqual({ attempts: 1 });
      stalling = false;
      // An hour later (past the back-off) the receiver answers: delivered once, and no longer queued.
      expect(await t.server.webhooks.tick(Date.now() + 3600_000)).toBe(1);
      expect(got).toEqual([notification]);
      expect(await t.db('webhook_delivery').where({ notification_id: notification.id })).toEqual([]);
    } finally {
      for (const res of held) res.destroy();
      await new Promise((resolve) => slow.close(resolve));
    }
  });
});

describe('acknowledging all', () => {
  it("acknowledges every open notification of the caller's account at once, with an audit entry, and no one else's", async () => {
    const mine = await f.account();
    const me = await f.user({ accountId: mine.id, roles: ['account-admin'] });
    const other = await f.account();
    const them = await f.user({ accountId: other.id, roles: ['account-admin'] });
    const raise = (account: number, subject: string) =>
      t.server.attention.raise(
        { accountId: account, kind: 'sensor-stale', subject, message: `test ${subject}` },
        Date.parse('2026-08-01T10:00:00Z'),
      );
    await raise(mine.id, 'a');
    await raise(mine.id, 'b');
    await raise(other.id, 'c');
    const open = async (as: string) => (await list({ unacknowledged: 'true' }, as)).body.length;
    expect([await open(me.token), await open(them.token)]).toEqual([2, 1]);

    // Another account's notifications are not the caller's to acknowledge: refused, nothing changes.
    const refused = await t.request('POST', '/api/v3_0/notifications/acknowledge', { token: me.token, json: { account_id: other.id } });
    expect(refused.status).toBe(403);
    expect(await open(them.token)).toBe(1);
    expect((await t.request('POST', '/api/v3_0/notifications/acknowledge', { token: me.token, json: { account_id: 'x' } })).status).toBe(
      422,
    );
    expect((await t.request('POST', '/api/v3_0/notifications/acknowledge', { json: {} })).status).toBe(401);

    const done = await t.request('POST', '/api/v3_0/notifications/acknowledge', { token: me.token, json: {} });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ acknowledged: 2 });
    expect(await open(me.token)).toBe(0);
    const stored = await t.db('notification').where({ account_id: mine.id });
    expect(stored.map((n: { acknowledged_by: number }) => n.acknowledged_by)).toEqual([me.user.id, me.user.id]);
    expect(stored.every((n: { acknowledged_at: number | null }) => n.acknowledged_at !== null)).toBe(true);
    // The other account's notification is untouched.
    expect(await t.db('notification').where({ account_id: other.id }).first()).toMatchObject({
      acknowledged_at: null,
      acknowledged_by: null,
    });
    const log = await t.request('GET', `/api/v3_0/accounts/${mine.id}/auditlog`, { token: me.token });
    expect(log.body.map((e: { event: string }) => e.event)).toContain('Acknowledged all notifications: 2');
    // Nothing left: acknowledged none, and no entry for it.
    expect((await t.request('POST', '/api/v3_0/notifications/acknowledge', { token: me.token, json: {} })).body).toEqual({
      acknowledged: 0,
    });
  });
});

describe('instantaneous sensors', () => {
  it('go stale after the stated age (an hour by default) without a reading', async () => {
    const mine = await f.account();
    const me = await f.user({ accountId: mine.id, roles: ['account-admin'] });
    const battery = await f.asset({ accountId: mine.id, type: 'battery', name: 'Garage battery' });
    const soc = await f.sensor({
      assetId: battery.id,
      unit: '%',
      resolutionMinutes: 0,
      name: 'state of charge',
      timezone: 'Europe/Amsterdam',
    });
    const read = await t.request('POST', `/api/v3_0/sensors/${soc.id}/data`, {
      token: me.token,
      json: { values: [50], start: '2026-12-01T09:00:00Z', duration: 'PT0H', unit: '%', prior: '2026-12-01T09:00:00Z' },
    });
    expect(read.status).toBe(200);
    expect(await t.server.attention.checkStale(Date.parse('2026-12-01T10:00:00Z'))).toBe(0);
    expect(await t.server.attention.checkStale(Date.parse('2026-12-01T10:01:00Z'))).toBe(1);
    const [stale] = (await list({}, me.token)).body;
    // 09:00 UTC is 10:00 in Amsterdam in December (CET, UTC+1).
    expect(stale).toMatchObject({
      kind: 'sensor-stale',
      sensor_id: soc.id,
      sensor_name: 'Garage battery state of charge',
      message:
        'Garage battery state of charge has had no data since 2026-12-01 10:00 Europe/Amsterdam; it counts as stale after 1 h without data.',
    });
  });
});

describe('the stale check', () => {
  it('judges each sensor by its own last measurement, read together with the others', async () => {
    const mine = await f.account();
    const me = await f.user({ accountId: mine.id, roles: ['account-admin'] });
    const house = await f.asset({ accountId: mine.id, type: 'building', name: 'Barn' });
    const early = await f.sensor({ assetId: house.id, unit: 'kW', resolutionMinutes: 15, name: 'early meter', timezone: 'UTC' });
    const late = await f.sensor({ assetId: house.id, unit: 'kW', resolutionMinutes: 15, name: 'late meter', timezone: 'UTC' });
    // Last events: 00:45–01:00 and 01:00–01:15; each is stale 30 minutes after its end.
    await f.beliefs(early.id, Date.parse('2027-03-01T00:30:00Z'), 900_000, [1, 2], Date.parse('2027-03-01T01:00:00Z'));
    await f.beliefs(late.id, Date.parse('2027-03-01T00:30:00Z'), 900_000, [1, 2, 3], Date.parse('2027-03-01T01:15:00Z'));
    const staleOf = async () =>
      ((await list({}, me.token)).body as { kind: string; subject: string }[])
        .filter((n) => n.kind === 'sensor-stale')
        .map((n) => n.subject);
    expect(await t.server.attention.checkStale(Date.parse('2027-03-01T01:31:00Z'))).toBe(1);
    expect(await staleOf()).toEqual([`sensor-stale:${early.id}:${Date.parse('2027-03-01T00:45:00Z')}`]);
    expect(await t.server.attention.checkStale(Date.parse('2027-03-01T01:46:00Z'))).toBe(1);
    expect((await staleOf()).sort()).toEqual(
      [
        `sensor-stale:${early.id}:${Date.parse('2027-03-01T00:45:00Z')}`,
        `sensor-stale:${late.id}:${Date.parse('2027-03-01T01:00:00Z')}`,
      ].sort(),
    );
  });
});
