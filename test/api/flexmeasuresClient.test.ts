import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories, PASSWORD } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * The current `flexmeasures-client` against a started server, in both API dialects.
 *
 * `Client` below is a TypeScript transcription of the HTTP calls of flexmeasures-client at commit
 * aa8107d9 (main, 2026-07-23; src/flexmeasures_client/client.py and response_handling.py): the
 * same URLs, query strings, bodies and headers, the same reading of `FlexMeasures-Version`, and
 * the same answer handling (poll on a GET's 202 or on a 400 "job waiting/in progress", follow a
 * 303, log in again once on a 401, fail on anything else ≥ 400). Python's spellings are kept where
 * they reach the wire: `str(False)` is `False`, pandas writes durations as `P0DT1H0M0S`.
 */

/** pandas.Timedelta(...).isoformat() of whole hours. */
const pandasDuration = (hours: number) => `P${Math.floor(hours / 24)}DT${hours % 24}H0M0S`;

/** packaging.Version comparison of release parts, as the client does with the server version. */
function atLeast(version: string | null, minimum: string): boolean {
  if (version === null) return false;
  const parts = (v: string) => v.replace(/^v/, '').split(/[.-]/).slice(0, 3).map(Number);
  const [a, b] = [parts(version), parts(minimum)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}

class Client {
  accessToken: string | null = null;
  serverVersion: string | null = null;
  /** Every request the client made, as method and path with query. */
  readonly calls: string[] = [];
  private sensorAssetIds = new Map<number, number>();

  constructor(
    private readonly base: string,
    private readonly email: string,
    private readonly password: string,
  ) {}

  /** client.request + request_once + check_response, with polling shortened for a test. */
  async request(
    uri: string,
    options: { method?: string; json?: unknown; params?: Record<string, string>; path?: string; auth?: boolean } = {},
  ) {
    const method = options.method ?? 'POST';
    const auth = options.auth ?? true;
    let url = new URL((options.path ?? '/api/v3_0/') + uri, this.base);
    for (const [k, v] of Object.entries(options.params ?? {})) url.searchParams.set(k, v);
    let reauth = auth;
    for (let step = 0; step < 200; step++) {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (auth) {
        if (this.accessToken === null) await this.getAccessToken();
        headers.Authorization = this.accessToken!;
      }
      this.calls.push(`${method} ${url.pathname}${url.search}`);
      const res = await fetch(url, {
        method,
        headers,
        body: options.json === undefined ? undefined : JSON.stringify(options.json),
        redirect: 'manual',
      });
      const payload = (await res.json()) as Record<string, unknown> | unknown[] | null;
      const version = res.headers.get('FlexMeasures-Version');
      if (version !== null) this.serverVersion = version;
      const body = (payload ?? {}) as Record<string, unknown>;
      const message = typeof body.message === 'string' ? body.message : '';
      if (res.status === 202 && method === 'GET') {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      if (res.status < 300) {
        expect(res.headers.get('Content-Type')).toContain('application/json');
        return { body: payload, status: res.status };
      }
      if (res.status === 303) {
        url = new URL(res.headers.get('location')!);
        continue;
      }
      if (res.status === 400 && /Scheduling job waiting|Scheduling job in progress|Scheduling job has an unknown status/.test(message)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        continue;
      }
      if (res.status === 401 && reauth) {
        await this.getAccessToken();
        reauth = false;
        continue;
      }
      throw new Error(`Request failed with status code ${res.status}: ${JSON.stringify(payload)}`);
    }
    throw new Error('Max polling steps reached while waiting for the API response.');
  }

  async getAccessToken() {
    const { body } = await this.request('requestAuthToken', {
      path: '/api/',
      json: { email: this.email, password: this.password },
      auth: false,
    });
    this.accessToken = (body as { auth_token: string }).auth_token;
  }

  async getVersions() {
    const { body } = await this.request('', { path: '/api/', method: 'GET', auth: false });
    const b = body as { versions: string[]; flexmeasures_version: string };
    if (!b.versions.includes('v3_0')) throw new Error('v3_0 is not supported by the FlexMeasures Server.');
    return { server_version: b.flexmeasures_version, server_supports_api_versions: b.versions };
  }

  async getAccount() {
    const { body: users } = await this.request('users', { method: 'GET' });
    const accountId = (users as { email: string; account_id: number }[]).find((u) => u.email === this.email)!.account_id;
    return (await this.request(`accounts/${accountId}`, { method: 'GET' })).body as { id: number; name: string };
  }

  async getAssetTypes() {
    return (await this.request('assets/types', { method: 'GET' })).body as { id: number; name: string }[];
  }

  async addAsset(a: {
    name: string;
    account_id: number;
    latitude: number;
    longitude: number;
    generic_asset_type_id: number;
    parent_asset_id?: number;
    sensors_to_show?: unknown[];
    flex_context?: object;
    flex_model?: object;
    attributes?: object;
  }) {
    const asset: Record<string, unknown> = {
      name: a.name,
      account_id: a.account_id,
      latitude: a.latitude,
      longitude: a.longitude,
      generic_asset_type_id: a.generic_asset_type_id,
    };
    if (a.parent_asset_id) asset.parent_asset_id = a.parent_asset_id;
    if (a.sensors_to_show) asset.sensors_to_show = JSON.stringify(a.sensors_to_show);
    if (a.flex_context) asset.flex_context = JSON.stringify(a.flex_context);
    if (a.flex_model) asset.flex_model = JSON.stringify(a.flex_model);
    if (a.attributes) asset.attributes = JSON.stringify(a.attributes);
    const { body, status } = await this.request('assets', { json: asset, method: 'POST' });
    expect(status).toBeGreaterThanOrEqual(200);
    return body as Record<string, unknown> & { id: number };
  }

  async getAssets() {
    const uri = 'assets?all_accessible=False&sort_by=id&sort_dir=asc&include_public=False';
    return (await this.request(uri, { method: 'GET' })).body as { id: number; name: string; flex_context?: string }[];
  }

  async getAsset(id: number) {
    return (await this.request(`assets/${id}`, { method: 'GET' })).body as Record<string, unknown>;
  }

  async updateAsset(id: number, updates: Record<string, unknown>) {
    const sent: Record<string, unknown> = { ...updates };
    for (const key of ['attributes', 'flex_context', 'flex_model', 'sensors_to_show']) {
      if (key in sent) sent[key] = JSON.stringify(sent[key]);
    }
    return (await this.request(`assets/${id}`, { json: sent, method: 'PATCH' })).body as Record<string, unknown>;
  }

  async addSensor(s: {
    name: string;
    event_resolution: string;
    unit: string;
    generic_asset_id: number;
    timezone?: string;
    attributes?: object;
  }) {
    const sensor: Record<string, unknown> = {
      name: s.name,
      event_resolution: s.event_resolution,
      unit: s.unit,
      generic_asset_id: s.generic_asset_id,
    };
    if (s.timezone) sensor.timezone = s.timezone;
    if (s.attributes) sensor.attributes = JSON.stringify(s.attributes);
    const { body, status } = await this.request('sensors', { json: sensor, method: 'POST' });
    expect(status).toBe(201);
    return body as { id: number; generic_asset_id: number };
  }

  async getSensors(assetId?: number) {
    return (await this.request(`sensors${assetId ? `?asset_id=${assetId}` : ''}`, { method: 'GET' })).body as { id: number }[];
  }

  async getSensor(id: number) {
    return (await this.request(`sensors/${id}`, { method: 'GET' })).body as { id: number; generic_asset_id: number; unit: string };
  }

  async postSensorData(sensorId: number, d: { start: string; duration: string; values: number[]; unit: string }) {
    await this.request(`sensors/${sensorId}/data`, { json: { start: d.start, duration: d.duration, values: d.values, unit: d.unit } });
  }

  async getSensorData(sensorId: number, q: { start: string; duration: string; unit: string; resolution: string }) {
    const { body } = await this.request(`sensors/${sensorId}/data`, { method: 'GET', params: q });
    const b = body as Record<string, unknown>;
    return { values: b.values as (number | null)[], start: b.start, duration: b.duration, unit: b.unit };
  }

  /** trigger_schedule: the asset endpoint from server 0.27 on, the sensor endpoint before. */
  async triggerSchedule(t: {
    start: string;
    duration: string;
    flexModel?: Record<string, unknown>;
    flexContext?: object;
    sensorId: number;
  }) {
    const message: Record<string, unknown> = { start: t.start, duration: t.duration };
    if (t.flexModel) message['flex-model'] = t.flexModel;
    if (t.flexContext) message['flex-context'] = t.flexContext;
    let assetId: number | undefined;
    const useSensorEndpoint = this.serverVersion !== null && !atLeast(this.serverVersion, '0.27.0');
    if (!useSensorEndpoint) {
      if (!this.sensorAssetIds.has(t.sensorId)) this.sensorAssetIds.set(t.sensorId, (await this.getSensor(t.sensorId)).generic_asset_id);
      assetId = this.sensorAssetIds.get(t.sensorId);
      message['flex-model'] = t.flexModel === undefined ? [{ sensor: t.sensorId }] : [{ ...t.flexModel, sensor: t.sensorId }];
    }
    const { body, status } = useSensorEndpoint
      ? await this.request(`sensors/${t.sensorId}/schedules/trigger`, { json: message })
      : await this.request(`assets/${assetId}/schedules/trigger`, { json: message });
    expect(status).toBeGreaterThanOrEqual(200);
    expect(status).toBeLessThan(300);
    const schedule = (body as { schedule: unknown }).schedule;
    if (typeof schedule !== 'string') throw new Error(`Expected a schedule ID, but got ${typeof schedule}`);
    return schedule;
  }

  /** get_schedule: the unit is converted by the server from 0.32 on, by the client (W/kW/MW) before. */
  async getSchedule(sensorId: number, scheduleId: string, duration: string, unit?: string) {
    const params: Record<string, string> = { duration };
    const serverHandlesUnit = unit !== undefined && atLeast(this.serverVersion, '0.32.0');
    if (serverHandlesUnit) params.unit = unit;
    const { body } = await this.request(`sensors/${sensorId}/schedules/${scheduleId}`, { method: 'GET', params });
    const schedule = body as { values: number[]; unit: string; start: string; duration: string };
    if (unit !== undefined && !serverHandlesUnit) {
      const factor = { W: 1e-6, kW: 1e-3, MW: 1 } as Record<string, number>;
      schedule.values = schedule.values.map((v) => (v * factor[schedule.unit]) / factor[unit]);
      schedule.unit = unit;
    }
    return schedule;
  }
}

describe.each(['0.18', '1.0'])('flexmeasures-client against FLEXSITE_API_COMPAT=%s', (dialect) => {
  let t: TestServer;
  let client: Client;
  let email: string;

  beforeAll(async () => {
    t = await startTestServer({ FLEXSITE_API_COMPAT: dialect });
    const f = factories(t.db);
    const accountId = (await f.account({ name: `Client account ${dialect}` })).id;
    email = (await f.user({ accountId, roles: ['account-admin'] })).user.email;
    client = new Client(t.url, email, PASSWORD);
  });
  afterAll(() => t.close());

  it('sets up a site: account, asset types, add_asset with flex config, sensors, data', async () => {
    const versions = await client.getVersions();
    expect(versions.server_version).toBe(dialect === '1.0' ? '1.0.0' : '0.18.1');
    const account = await client.getAccount();
    const types = await client.getAssetTypes();
    const battery = types.find((ty) => ty.name === 'battery')!;
    const building = types.find((ty) => ty.name === 'building')!;

    // The call that failed before with {"json": {"flex_context": ["Unknown field."]}}.
    const site = await client.addAsset({
      name: 'My site',
      account_id: account.id,
      latitude: 52.37,
      longitude: 4.89,
      generic_asset_type_id: building.id,
      flex_context: { 'site-power-capacity': '25 kVA' },
    });
    expect(JSON.parse(site.flex_context as string)).toEqual({ 'site-power-capacity': '25 kVA' });
    const home = await client.addAsset({
      name: 'Home battery',
      account_id: account.id,
      latitude: 52.37,
      longitude: 4.89,
      generic_asset_type_id: battery.id,
      parent_asset_id: site.id,
      flex_model: { 'soc-min': '0 kWh', 'soc-max': '10 kWh', 'power-capacity': '5 kW' },
    });
    const prices = await client.addAsset({
      name: 'Prices',
      account_id: account.id,
      latitude: 52.37,
      longitude: 4.89,
      generic_asset_type_id: building.id,
    });
    const power = await client.addSensor({
      name: 'battery power',
      event_resolution: 'PT15M',
      unit: 'kW',
      generic_asset_id: home.id,
      timezone: 'Europe/Amsterdam',
    });
    const price = await client.addSensor({
      name: 'day-ahead',
      event_resolution: 'PT1H',
      unit: 'EUR/MWh',
      generic_asset_id: prices.id,
      timezone: 'Europe/Amsterdam',
    });
    expect((await client.getSensors(home.id)).map((s) => s.id)).toEqual([power.id]);
    await client.updateAsset(site.id, { flex_context: { 'site-power-capacity': '25 kVA', 'consumption-price': { sensor: price.id } } });

    const listed = await client.getAssets();
    expect(listed.map((a) => a.id)).toEqual([site.id, home.id, prices.id]);
    expect(JSON.parse((await client.getAsset(site.id)).flex_context as string)).toEqual({
      'site-power-capacity': '25 kVA',
      'consumption-price': { sensor: price.id },
    });

    // Cheap before 06:00, dear in the evening.
    const values = Array.from({ length: 24 }, (_, h) => (h < 6 ? 20 : h >= 17 && h < 21 ? 120 : 60));
    await client.postSensorData(price.id, { start: '2015-01-02T00:00:00+01:00', duration: pandasDuration(24), values, unit: 'EUR/MWh' });
    const back = await client.getSensorData(price.id, {
      start: '2015-01-02T00:00:00+01:00',
      duration: pandasDuration(3),
      unit: 'EUR/kWh',
      resolution: pandasDuration(1),
    });
    expect(back).toMatchObject({ values: [0.02, 0.02, 0.02], unit: 'EUR/kWh' });

    // Trigger on the device's sensor with a partial flex-model; the rest is stored on its asset
    // (soc-max, power-capacity) and its parent (prices, site capacity).
    const scheduleId = await client.triggerSchedule({
      sensorId: power.id,
      start: '2015-01-02T00:00:00+01:00',
      duration: pandasDuration(12),
      flexModel: { 'soc-at-start': '0 kWh', 'soc-targets': [{ value: '10 kWh', datetime: '2015-01-02T08:00:00+01:00' }] },
    });
    const schedule = await client.getSchedule(power.id, scheduleId, pandasDuration(12), 'W');
    expect(schedule.unit).toBe('W');
    expect(schedule.start).toBe('2015-01-02T00:00:00+01:00');
    expect(schedule.values).toHaveLength(48);
    // 10 kWh by 08:00, bought while prices are lowest (before 06:00), within the stored 5 kW.
    const kwhBy8 = schedule.values.slice(0, 32).reduce((sum, w) => sum + (w / 1000) * 0.25, 0);
    expect(kwhBy8).toBeCloseTo(10, 3);
    schedule.values.slice(24, 32).forEach((w) => expect(Math.abs(w)).toBeLessThan(1e-6));
    schedule.values.forEach((w) => expect(Math.abs(w)).toBeLessThanOrEqual(5000 + 1e-6));

    const endpoint =
      dialect === '1.0' ? `POST /api/v3_0/assets/${home.id}/schedules/trigger` : `POST /api/v3_0/sensors/${power.id}/schedules/trigger`;
    expect(client.calls).toContain(endpoint);
  });

  it('logs in again once when its token is no longer accepted', async () => {
    client.accessToken = 'expired-token';
    expect((await client.getAccount()).id).toBeGreaterThan(0);
  });
});
