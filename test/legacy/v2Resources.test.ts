import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EA, legacySite, rejected, type LegacySite } from '../helpers/legacy.ts';

let site: LegacySite;
let accountId: number;
beforeAll(async () => {
  site = await legacySite();
  accountId = site.account.id;
});
afterAll(() => site.t.close());

const api = (path: string) => `/api/v2_0/${path}`;
const asMember = (method: string, path: string, json?: unknown) => site.t.request(method, api(path), { token: site.member.token, json });

describe('/api/v2_0 assets', () => {
  it('lists the account’s devices (power sensors) with the 2.0 fields', async () => {
    const battery = await site.battery({ name: 'listed battery' });
    const res = await asMember('GET', 'assets');
    expect(res.status).toBe(200);
    const listed = res.body.find((a: { id: number }) => a.id === battery.id);
    expect(listed).toEqual({
      id: battery.id,
      name: 'listed battery',
      display_name: expect.any(String),
      asset_type: 'battery',
      unit: 'MW',
      event_resolution: 15,
      latitude: null,
      longitude: null,
      owner_id: accountId,
      capacity_in_mw: 1,
      market_id: site.market.id,
      min_soc_in_mwh: 0,
      max_soc_in_mwh: 2,
      soc_datetime: null,
      soc_in_mwh: null,
      soc_udi_event_id: null,
    });
    // Markets and weather sensors are no 2.0 assets.
    expect(res.body.map((a: { unit: string }) => a.unit).every((u: string) => u === 'MW')).toBe(true);
  });

  it('filters by owner_id: admins see any account, others only their own', async () => {
    const admin = await site.t.request('GET', api(`assets?owner_id=${accountId}`), { token: site.admin.token });
    expect(admin.status).toBe(200);
    expect(admin.body.length).toBeGreaterThan(0);
    const stranger = await site.t.request('GET', api(`assets?owner_id=${accountId}`), { token: site.stranger.token });
    expect(stranger.status).toBe(403);
    expect(stranger.body).toMatchObject({ result: 'Rejected', status: 'INVALID_SENDER' });
    const bad = await asMember('GET', 'assets?owner_id=mine');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual(rejected('INVALID_REQUEST'));
  });

  const newBattery = (name: string) => ({
    name,
    asset_type: 'battery',
    unit: 'kW',
    owner_id: accountId,
    market_id: site.market.id,
    event_resolution: 5,
    capacity_in_mw: 4.2,
    latitude: 40,
    longitude: 170.3,
    max_soc_in_mwh: 5,
    min_soc_in_mwh: 0,
  });

  it('lets admins create an asset: 201 with every field, the SoC ones null', async () => {
    const res = await site.t.request('POST', api('assets'), { token: site.admin.token, json: newBattery('Test battery') });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      ...newBattery('Test battery'),
      id: expect.any(Number),
      display_name: 'Test battery',
      soc_datetime: null,
      soc_in_mwh: null,
      soc_udi_event_id: null,
    });
    const sensor = await site.t.db('sensor').where({ id: res.body.id }).first();
    expect(sensor).toMatchObject({ name: 'Test battery', unit: 'kW', event_resolution_ms: 300_000 });
  });

  it('refuses creation by non-admins (403) and incomplete batteries or unknown types (422)', async () => {
    expect((await asMember('POST', 'assets', newBattery('mine'))).status).toBe(403);
    const { max_soc_in_mwh: _max, ...noMax } = newBattery('no max');
    const incomplete = await site.t.request('POST', api('assets'), { token: site.admin.token, json: noMax });
    expect(incomplete.status).toBe(422);
    expect(incomplete.body.message).toEqual({ json: { max_soc_in_mwh: ['Required for battery assets.'] } });
    const unknownType = await site.t.request('POST', api('assets'), {
      token: site.admin.token,
      json: { ...newBattery('odd'), asset_type: 'flux capacitor' },
    });
    expect(unknownType.status).toBe(422);
    expect(unknownType.body.message.json.asset_type).toEqual(["Unknown asset type 'flux capacitor'."]);
  });

  it('gets an asset for its owner; 403 for others, 404 unknown, 400 INVALID_REQUEST for a malformed id', async () => {
    const battery = await site.battery();
    const res = await asMember('GET', `asset/${battery.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: battery.id, owner_id: accountId, event_resolution: 15 });
    expect((await site.t.request('GET', api(`asset/${battery.id}`), { token: site.stranger.token })).status).toBe(403);
    expect((await asMember('GET', 'asset/999999')).status).toBe(404);
    const malformed = await asMember('GET', 'asset/first');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual(rejected('INVALID_REQUEST'));
  });

  it('patches any subset of fields, ignores id and owner_id, and answers with the whole asset', async () => {
    const battery = await site.battery();
    const res = await asMember('PATCH', `asset/${battery.id}`, {
      id: 1,
      owner_id: 1,
      latitude: 11.1,
      longitude: 99.9,
      event_resolution: 30,
      capacity_in_mw: 2,
      soc_datetime: '2015-01-01T00:00:00+00:00',
      soc_in_mwh: 2.5,
      soc_udi_event_id: 203,
      market_id: null,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: battery.id,
      owner_id: accountId,
      latitude: 11.1,
      longitude: 99.9,
      event_resolution: 30,
      capacity_in_mw: 2,
      soc_datetime: '2015-01-01T00:00:00Z',
      soc_in_mwh: 2.5,
      soc_udi_event_id: 203,
      market_id: null,
    });
    const invalid = await asMember('PATCH', `asset/${battery.id}`, { latitude: 100 });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toMatchObject({
      result: 'Rejected',
      status: 'UNPROCESSABLE_ENTITY',
      message: { json: { latitude: [expect.any(String)] } },
    });
    expect((await site.t.request('PATCH', api(`asset/${battery.id}`), { token: site.stranger.token, json: { latitude: 1 } })).status).toBe(
      403,
    );
  });

  it('applies the value rules of stored attributes to a patch, and answers a foreign market as unknown (issue 28)', async () => {
    const battery = await site.battery();
    const before = await site.t.db('sensor').where({ id: battery.id }).first();
    const refused = async (json: Record<string, unknown>, field: string) => {
      const res = await asMember('PATCH', `asset/${battery.id}`, json);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.message.json[field], JSON.stringify(res.body)).toEqual([expect.any(String)]);
      return res.body.message.json[field][0] as string;
    };
    // The battery's max_soc_in_mwh is 2.
    await refused({ min_soc_in_mwh: 3 }, 'min_soc_in_mwh');
    await refused({ min_soc_in_mwh: 1, max_soc_in_mwh: 0.5 }, 'min_soc_in_mwh');
    await refused({ soc_in_mwh: -3 }, 'soc_in_mwh');
    await refused({ capacity_in_mw: 1e300 }, 'capacity_in_mw');
    // Another account's price sensor and its power sensor are answered alike, as an unknown market.
    const other = (await site.f.account()).id;
    const otherAsset = (await site.f.asset({ accountId: other })).id;
    const foreignPrice = (await site.f.sensor({ assetId: otherAsset, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
    const foreignPower = (await site.f.sensor({ assetId: otherAsset, unit: 'MW' })).id;
    expect(await refused({ market_id: foreignPrice }, 'market_id')).toBe(`No market (price sensor) with id ${foreignPrice}.`);
    expect(await refused({ market_id: foreignPower }, 'market_id')).toBe(`No market (price sensor) with id ${foreignPower}.`);
    expect(await site.t.db('sensor').where({ id: battery.id }).first()).toEqual(before);
  });

  it('shows the state of charge a UDI event reported', async () => {
    const battery = await site.battery();
    const posted = await asMember('POST', 'postUdiEvent', {
      type: 'PostUdiEventRequest',
      event: `${EA}:${accountId}:${battery.id}:7:soc`,
      value: 1.5,
      unit: 'MWh',
      datetime: '2015-01-01T00:00:00+01:00',
    });
    expect(posted.status).toBe(200);
    const res = await asMember('GET', `asset/${battery.id}`);
    expect(res.body).toMatchObject({ soc_in_mwh: 1.5, soc_datetime: '2015-01-01T00:00:00+01:00', soc_udi_event_id: 7 });
  });

  it('deletes an asset with its data (204); the asset it sat on goes when it held only this device', async () => {
    const battery = await site.battery();
    await site.f.beliefs(battery.id, Date.parse('2015-01-01T00:00:00Z'), 900_000, [1, 2], Date.parse('2015-01-02T00:00:00Z'));
    expect((await site.t.request('DELETE', api(`asset/${battery.id}`), { token: site.stranger.token })).status).toBe(403);
    const res = await asMember('DELETE', `asset/${battery.id}`);
    expect(res.status).toBe(204);
    expect(await site.t.db('sensor').where({ id: battery.id }).first()).toBeUndefined();
    expect(await site.t.db('timed_belief').where({ sensor_id: battery.id }).first()).toBeUndefined();
    expect(await site.t.db('generic_asset').where({ id: battery.generic_asset_id }).first()).toBeUndefined();
    expect((await asMember('GET', `asset/${battery.id}`)).status).toBe(404);
  });
});

describe('/api/v2_0 users', () => {
  const FIELDS = ['account_id', 'active', 'email', 'flexmeasures_roles', 'id', 'timezone', 'username'];

  it('lists the users of the caller’s account with the 2.0 fields', async () => {
    const res = await asMember('GET', 'users');
    expect(res.status).toBe(200);
    expect(res.body.map((u: { id: number }) => u.id)).toEqual([site.member.user.id]);
    expect(Object.keys(res.body[0]).sort()).toEqual(FIELDS);
    const admin = await site.t.request('GET', api(`users?account_id=${accountId}&include_inactive=true`), { token: site.admin.token });
    expect(admin.body.map((u: { id: number }) => u.id)).toEqual([site.member.user.id]);
  });

  it('gets a user for themselves and same-account members, 403 for others', async () => {
    const res = await asMember('GET', `user/${site.member.user.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: site.member.user.id,
      email: site.member.user.email,
      username: site.member.user.username,
      active: true,
      account_id: accountId,
      timezone: 'Europe/Amsterdam',
      flexmeasures_roles: site.member.user.roleIds,
    });
    expect((await site.t.request('GET', api(`user/${site.member.user.id}`), { token: site.stranger.token })).status).toBe(403);
    expect((await asMember('GET', 'user/me')).body).toEqual(rejected('INVALID_REQUEST'));
  });

  it('patches a user: the user themselves or an admin; id and account_id are ignored', async () => {
    const res = await asMember('PATCH', `user/${site.member.user.id}`, { id: 1, account_id: 1, timezone: 'Europe/Berlin' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: site.member.user.id, account_id: accountId, timezone: 'Europe/Berlin' });
    // An account-admin of the same account may not, in version 2.0.
    const colleague = await site.f.user({ accountId });
    expect((await asMember('PATCH', `user/${colleague.user.id}`, { timezone: 'UTC' })).status).toBe(403);
    const byAdmin = await site.t.request('PATCH', api(`user/${colleague.user.id}`), { token: site.admin.token, json: { timezone: 'UTC' } });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.timezone).toBe('UTC');
    const invalid = await asMember('PATCH', `user/${site.member.user.id}`, { timezone: 'Mars/Olympus' });
    expect(invalid.status).toBe(422);
  });

  it('resets a password for the user themselves or an admin, revoking their tokens', async () => {
    const colleague = await site.f.user({ accountId });
    expect((await asMember('PATCH', `user/${colleague.user.id}/password-reset`)).status).toBe(403);
    const res = await site.t.request('PATCH', api(`user/${colleague.user.id}/password-reset`), { token: colleague.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'PROCESSED', message: 'Request has been processed.' });
    expect((await site.t.request('GET', api('users'), { token: colleague.token })).status).toBe(401);
    const other = await site.f.user({ accountId });
    expect((await site.t.request('PATCH', api(`user/${other.user.id}/password-reset`), { token: site.admin.token })).status).toBe(200);
  });
});

describe('/api/v2_0/charts/power', () => {
  it('answers a Vega-Lite chart of a device’s power, consumption positive, per kind of source', async () => {
    const battery = await site.battery({ name: 'charted battery' });
    await site.f.beliefs(battery.id, Date.parse('2015-01-01T00:00:00Z'), 900_000, [-1, -2, 3, 4], Date.parse('2015-01-02T00:00:00Z'));
    const query = { start_time: '2015-01-01T00:00:00+00:00', end_time: '2015-01-01T01:00:00+00:00' };
    const res = await site.t.request('GET', api('charts/power'), { token: site.member.token, query: { resource: battery.id, ...query } });
    expect(res.status).toBe(200);
    expect(res.body.$schema).toMatch(/vega-lite/);
    const records = res.body.datasets[res.body.data.name];
    expect(records.map((r: { event_value: number }) => r.event_value)).toEqual([1, 2, -3, -4]);
    expect(new Set(records.map((r: { source: string }) => r.source))).toEqual(new Set(['measurements']));

    const raw = await site.t.request('GET', api('charts/power'), {
      token: site.member.token,
      query: {
        resource: 'charted battery',
        consumption_as_positive: false,
        resolution: 'PT30M',
        show_individual_traces_for: 'power',
        ...query,
      },
    });
    expect(raw.status).toBe(200);
    const coarse = raw.body.datasets[raw.body.data.name];
    expect(coarse.map((r: { event_value: number }) => r.event_value)).toEqual([-1.5, 3.5]);
    expect(coarse[0].source).toBe('test fixtures');
  });

  it('answers 422 for an unknown resource or bad parameters, 403 for another account’s device', async () => {
    const battery = await site.battery();
    const unknown = await site.t.request('GET', api('charts/power'), { token: site.member.token, query: { resource: 'nothing here' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.message.query.resource).toEqual([expect.any(String)]);
    const bad = await site.t.request('GET', api('charts/power'), {
      token: site.member.token,
      query: { resource: battery.id, show_individual_traces_for: 'all' },
    });
    expect(bad.status).toBe(422);
    const stranger = await site.t.request('GET', api('charts/power'), { token: site.stranger.token, query: { resource: battery.id } });
    expect(stranger.status).toBe(403);
  });
});
