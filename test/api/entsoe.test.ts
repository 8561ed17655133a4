import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { SimulatedClock } from '../../server/src/clock.ts';
import { startTestServer } from '../helpers/testServer.ts';

const NL = '10YNL----------L';
/** The platform's Dutch day for 9 March 2026 (CET): 23:00 UTC to 23:00 UTC. */
const dayStart = Date.parse('2026-03-08T23:00:00Z');
/** Prices the stub gives: position p costs p × 10 + 0.5 EUR/MWh, but positions 3 and 24 are left out (curve A03). */
const given = Array.from({ length: 24 }, (_, i) => i + 1).filter((p) => p !== 3 && p !== 24);
/** What the left-out positions mean: the price before them (20.5 for 3, 230.5 for 24). */
const expected = Array.from({ length: 24 }, (_, i) => (i + 1 === 3 ? 20.5 : i + 1 === 24 ? 230.5 : (i + 1) * 10 + 0.5));

/** A day-ahead prices document (A44) in the platform's documented form. */
const document = `<?xml version="1.0" encoding="utf-8"?>
<Publication_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-3:publicationdocument:7:3">
  <mRID>stub</mRID>
  <type>A44</type>
  <TimeSeries>
    <mRID>1</mRID>
    <businessType>A62</businessType>
    <in_Domain.mRID codingScheme="A01">${NL}</in_Domain.mRID>
    <out_Domain.mRID codingScheme="A01">${NL}</out_Domain.mRID>
    <currency_Unit.name>EUR</currency_Unit.name>
    <price_Measure_Unit.name>MWH</price_Measure_Unit.name>
    <curveType>A03</curveType>
    <Period>
      <timeInterval><start>2026-03-08T23:00Z</start><end>2026-03-09T23:00Z</end></timeInterval>
      <resolution>PT60M</resolution>
      ${given.map((p) => `<Point><position>${p}</position><price.amount>${p * 10 + 0.5}</price.amount></Point>`).join('\n      ')}
    </Period>
  </TimeSeries>
</Publication_MarketDocument>`;

const noData = `<?xml version="1.0" encoding="utf-8"?>
<Acknowledgement_MarketDocument xmlns="urn:iec62325.351:tc57wg16:451-1:acknowledgementdocument:7:0">
  <Reason><code>999</code><text>No matching data found</text></Reason>
</Acknowledgement_MarketDocument>`;

/** The price the window stub gives for an hour starting at `ms`: its UTC hour × 2.5 + 40 EUR/MWh. */
const windowPrice = (ms: number) => 40 + new Date(ms).getUTCHours() * 2.5;
const platformMs = (t: string) => Date.parse(`${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(8, 10)}:${t.slice(10, 12)}Z`);

/** A document (A44) with hourly prices for exactly the period asked, as the platform answers a request within what it has. */
function windowDocument(url: URL): string {
  const [startMs, endMs] = [platformMs(url.searchParams.get('periodStart')!), platformMs(url.searchParams.get('periodEnd')!)];
  const points = Array.from({ length: (endMs - startMs) / 3600_000 }, (_, i) => windowPrice(startMs + i * 3600_000));
  const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16) + 'Z';
  return document
    .replace(/<start>.*<\/start><end>.*<\/end>/, `<start>${iso(startMs)}</start><end>${iso(endMs)}</end>`)
    .replace(/(<resolution>PT60M<\/resolution>)[\s\S]*(<\/Period>)/, (_, res: string, end: string) => {
      const given = points.map((v, i) => `<Point><position>${i + 1}</position><price.amount>${v}</price.amount></Point>`);
      return [res, ...given, end].join('\n');
    });
}

const asked: URL[] = [];
let stub: http.Server;
let stubUrl: string;

async function withServer(env: Record<string, string>, clock?: SimulatedClock) {
  const t = await startTestServer(env, undefined, clock && { clock });
  const f = factories(t.db);
  const accountId = (await f.account()).id;
  const token = (await f.user({ accountId, roles: ['account-admin'] })).token;
  const asset = (await f.asset({ accountId, type: 'building' })).id;
  const sensor = (await f.sensor({ assetId: asset, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' })).id;
  const connect = (body: unknown, as = token) => t.request('POST', `/api/v3_0/assets/${asset}/price-connectors`, { token: as, json: body });
  const values = async () =>
    (await t.db('timed_belief').where({ sensor_id: sensor }).orderBy('event_start')).map(
      (r: { event_start: number; event_value: number }) => [Number(r.event_start), r.event_value],
    );
  return { t, f, token, asset, sensor, connect, values };
}

beforeAll(async () => {
  stub = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stub');
    asked.push(url);
    res.writeHead(url.pathname === '/nodata' ? 400 : 200, { 'Content-Type': 'text/xml' });
    res.end(url.pathname === '/nodata' ? noData : url.pathname === '/window' ? windowDocument(url) : document);
  });
  await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
  stubUrl = `http://127.0.0.1:${(stub.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => stub.close(resolve)));

describe('ENTSO-E day-ahead connector', () => {
  it('writes the stub platform’s prices, filling the points a curve leaves out', async () => {
    const s = await withServer({ FLEXSITE_ENTSOE_URL: `${stubUrl}/api`, FLEXSITE_ENTSOE_TOKEN: 'secret-token' });
    try {
      const res = await s.connect({ sensor: s.sensor, bidding_zone: NL });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ asset_id: s.asset, sensor: s.sensor, bidding_zone: NL, bidding_zone_name: 'Netherlands' });
      asked.length = 0;
      // Half past eleven (UTC) on 8 March is half past midnight on 9 March in Amsterdam, the
      // sensor's zone: the platform is asked from the start of that day (23:00 UTC) through the
      // end of the day the 48-hour horizon ends in (11 March), not for the UTC days 8 and 9 March.
      expect(await s.t.server.tariffs.tick(Date.parse('2026-03-08T23:30:00Z'))).toBe(24);
      // The intervals 23:00 (8 March) … 22:00 (9 March) UTC, from the connector's source.
      expect(await s.values()).toEqual(expected.map((v, i) => [dayStart + i * 3600_000, v]));
      expect(asked).toHaveLength(1);
      expect(asked[0].pathname).toBe('/api');
      expect(Object.fromEntries(asked[0].searchParams)).toEqual({
        securityToken: 'secret-token',
        documentType: 'A44',
        in_Domain: NL,
        out_Domain: NL,
        periodStart: '202603082300',
        periodEnd: '202603112300',
      });
      const [source] = await s.t.db('data_source').where({ name: 'ENTSO-E' });
      expect(source).toMatchObject({ type: 'reporter', model: 'day-ahead' });
    } finally {
      await s.t.close();
    }
  });

  it('is off without a token, and harmless when the platform has no data or cannot be reached', async () => {
    const off = await withServer({ FLEXSITE_ENTSOE_URL: `${stubUrl}/api` });
    try {
      // The UI says whether a token is set, never which.
      const platform = await off.t.request('GET', '/api/v3_0/price-connectors/platform', { token: off.token });
      expect(platform.body).toEqual({ token_configured: false });
      expect((await off.connect({ sensor: off.sensor, bidding_zone: NL })).status).toBe(201);
      asked.length = 0;
      expect(await off.t.server.tariffs.tick(Date.parse('2026-03-09T00:00:00Z'))).toBe(0);
      expect(asked).toHaveLength(0);
    } finally {
      await off.t.close();
    }
    const empty = await withServer({ FLEXSITE_ENTSOE_URL: `${stubUrl}/nodata`, FLEXSITE_ENTSOE_TOKEN: 'secret-token' });
    try {
      const platform = await empty.t.request('GET', '/api/v3_0/price-connectors/platform', { token: empty.token });
      expect(platform.body).toEqual({ token_configured: true });
      expect(JSON.stringify(platform.body)).not.toContain('secret-token');
      await empty.connect({ sensor: empty.sensor, bidding_zone: NL });
      expect(await empty.t.server.tariffs.tick(Date.parse('2026-03-09T00:00:00Z'))).toBe(0);
      expect(await empty.values()).toEqual([]);
    } finally {
      await empty.t.close();
    }
    // A port nobody listens on: the platform is unreachable.
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const offline = await withServer({ FLEXSITE_ENTSOE_URL: `http://127.0.0.1:${port}/api`, FLEXSITE_ENTSOE_TOKEN: 'secret-token' });
    try {
      await offline.connect({ sensor: offline.sensor, bidding_zone: NL });
      expect(await offline.t.server.tariffs.tick(Date.parse('2026-03-09T00:00:00Z'))).toBe(0);
      expect((await offline.t.request('GET', `/api/v3_0/assets/${offline.asset}`, { token: offline.token })).status).toBe(200);
    } finally {
      await offline.t.close();
    }
  });

  it('takes bidding zones from the list only, and price sensors the caller may write', async () => {
    const s = await withServer({});
    try {
      const zones = await s.t.request('GET', '/api/v3_0/price-connectors/bidding-zones', { token: s.token });
      expect(zones.status).toBe(200);
      expect(zones.body).toContainEqual({ code: NL, name: 'Netherlands' });
      const unknown = await s.connect({ sensor: s.sensor, bidding_zone: 'XX' });
      expect(unknown.status).toBe(422);
      expect(unknown.body.message.json.bidding_zone[0]).toMatch(/^Must be one of: 10YNL----------L, /);
      const other = (await s.f.account()).id;
      const theirs = await s.f.sensor({ assetId: (await s.f.asset({ accountId: other })).id, unit: 'EUR/MWh' });
      expect((await s.connect({ sensor: theirs.id, bidding_zone: NL })).status).toBe(403);
      const stranger = (await s.f.user({ accountId: other, roles: ['account-admin'] })).token;
      expect((await s.connect({ sensor: s.sensor, bidding_zone: NL }, stranger)).status).toBe(403);
      expect(await s.t.db('price_connector')).toEqual([]);
    } finally {
      await s.t.close();
    }
  });
  it('asks for a bidding zone once per tick, however many connectors follow it', async () => {
    const s = await withServer({ FLEXSITE_ENTSOE_URL: `${stubUrl}/api`, FLEXSITE_ENTSOE_TOKEN: 'secret-token' });
    try {
      const second = (await s.f.sensor({ assetId: s.asset, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
      expect((await s.connect({ sensor: s.sensor, bidding_zone: NL })).status).toBe(201);
      expect((await s.connect({ sensor: second, bidding_zone: NL })).status).toBe(201);
      asked.length = 0;
      // Both sensors get the day's 24 prices, from one request.
      expect(await s.t.server.tariffs.tick(Date.parse('2026-03-08T23:30:00Z'))).toBe(48);
      expect(asked).toHaveLength(1);
    } finally {
      await s.t.close();
    }
  });

  it('refuses connectors beyond the account’s limit, storing nothing', async () => {
    const s = await withServer({ FLEXSITE_PRICE_CONNECTORS_PER_ACCOUNT: '2' });
    try {
      // The limit counts the connectors of all the account's assets.
      const other = (await s.f.asset({ accountId: (await s.t.db('generic_asset').where({ id: s.asset }).first()).account_id })).id;
      expect((await s.connect({ sensor: s.sensor, bidding_zone: NL })).status).toBe(201);
      const there = await s.t.request('POST', `/api/v3_0/assets/${other}/price-connectors`, {
        token: s.token,
        json: { sensor: s.sensor, bidding_zone: NL },
      });
      expect(there.status).toBe(201);
      const third = await s.connect({ sensor: s.sensor, bidding_zone: NL });
      expect(third.status).toBe(422);
      expect(third.body.message.json._schema).toEqual([
        `The account of asset ${s.asset} has the most day-ahead price connectors allowed (2).`,
      ]);
      expect(await s.t.db('price_connector')).toHaveLength(2);
    } finally {
      await s.t.close();
    }
  });
});

describe('a price connector written when stored (issue 30)', () => {
  it('has prices from the start of today through the horizon at once, so that the first schedule finds them', async () => {
    // Friday 2 July 2027, 14:20 in Amsterdam; the planning horizon is 48 h.
    const nowMs = Date.parse('2027-07-02T14:20:00+02:00');
    const s = await withServer(
      { FLEXSITE_ENTSOE_URL: `${stubUrl}/window`, FLEXSITE_ENTSOE_TOKEN: 'secret-token' },
      new SimulatedClock(nowMs),
    );
    try {
      asked.length = 0;
      const res = await s.connect({ sensor: s.sensor, bidding_zone: NL });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ last_error: null, last_written_at: '2027-07-02T12:20:00.000Z' });
      // Asked from midnight in Amsterdam through the end of the day the horizon ends in (4 July).
      expect(asked.map((u) => [u.searchParams.get('periodStart'), u.searchParams.get('periodEnd')])).toEqual([
        ['202707012200', '202707042200'],
      ]);
      const todayStart = Date.parse('2027-07-02T00:00:00+02:00');
      const hours = Array.from({ length: 72 }, (_, i) => todayStart + i * 3600_000);
      expect(await s.values()).toEqual(hours.map((h) => [h, windowPrice(h)]));
      expect(hours[hours.length - 1] + 3600_000).toBeGreaterThanOrEqual(nowMs + 48 * 3600_000);

      // The first Compute right after: prices known over the whole schedule, nothing extended.
      const battery = (
        await s.f.sensor({
          assetId: (await s.f.asset({ accountId: await accountOf(s), type: 'battery' })).id,
          unit: 'MW',
          resolutionMinutes: 15,
        })
      ).id;
      const trigger = await s.t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
        token: s.token,
        json: {
          start: '2027-07-02T14:30:00+02:00',
          duration: 'PT8H',
          'flex-model': { 'soc-at-start': '0.5 MWh', 'soc-min': '0 MWh', 'soc-max': '1 MWh', 'power-capacity': '1 MW' },
          'flex-context': { 'consumption-price-sensor': s.sensor },
        },
      });
      expect(trigger.status).toBe(200);
      await s.t.server.services.jobs.settled(trigger.body.schedule, 30_000);
      const job = await s.t.request('GET', `/api/v3_0/jobs/${trigger.body.schedule}`, { token: s.token });
      expect(job.body).toMatchObject({ status: 'finished', error: null });
      expect((job.body.result.warnings ?? []).map((w: { code: string }) => w.code)).not.toContain('input-extended');
      const audit = await s.t.db('audit_log').where('event', 'like', 'Added day-ahead price connector%');
      expect(audit).toHaveLength(1);
    } finally {
      await s.t.close();
    }
  });

  it('writes at once when pointed at another sensor or zone; strangers and unknown ids change nothing', async () => {
    const nowMs = Date.parse('2027-07-02T14:20:00+02:00');
    const s = await withServer(
      { FLEXSITE_ENTSOE_URL: `${stubUrl}/window`, FLEXSITE_ENTSOE_TOKEN: 'secret-token' },
      new SimulatedClock(nowMs),
    );
    try {
      const created = await s.connect({ sensor: s.sensor, bidding_zone: NL });
      expect(created.status).toBe(201);
      const second = (await s.f.sensor({ assetId: s.asset, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' })).id;
      const put = (body: unknown, as = s.token, id = created.body.id) =>
        s.t.request('PUT', `/api/v3_0/assets/${s.asset}/price-connectors/${id}`, { token: as, json: body });
      const BE = '10YBE----------2';
      const stranger = (await s.f.user({ accountId: (await s.f.account()).id, roles: ['account-admin'] })).token;
      asked.length = 0;
      expect((await put({ sensor: second, bidding_zone: BE }, stranger)).status).toBe(403);
      expect((await put({ sensor: second, bidding_zone: BE }, s.token, created.body.id + 1000)).status).toBe(404);
      expect((await put({ sensor: second, bidding_zone: 'XX' })).status).toBe(422);
      expect(asked).toEqual([]);
      expect(await s.t.db('price_connector').where({ id: created.body.id }).first()).toMatchObject({
        sensor_id: s.sensor,
        bidding_zone: NL,
      });

      const changed = await put({ sensor: second, bidding_zone: BE });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ id: created.body.id, sensor: second, bidding_zone: BE, last_error: null });
      expect(asked.map((u) => [u.searchParams.get('in_Domain'), u.searchParams.get('periodStart')])).toEqual([[BE, '202707012200']]);
      const todayStart = Date.parse('2027-07-02T00:00:00+02:00');
      const onSecond = await s.t.db('timed_belief').where({ sensor_id: second }).orderBy('event_start');
      expect(onSecond.map((r: { event_start: number; event_value: number }) => [Number(r.event_start), r.event_value])).toEqual(
        Array.from({ length: 72 }, (_, i) => todayStart + i * 3600_000).map((h) => [h, windowPrice(h)]),
      );
      expect(await s.t.db('audit_log').where('event', 'like', 'Changed day-ahead price connector%')).toHaveLength(1);
    } finally {
      await s.t.close();
    }
  });

  it('is stored when the fetch fails, with the failure on the connector and notified once', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const s = await withServer({ FLEXSITE_ENTSOE_URL: `http://127.0.0.1:${port}/api`, FLEXSITE_ENTSOE_TOKEN: 'secret-token' });
    try {
      const res = await s.connect({ sensor: s.sensor, bidding_zone: NL });
      expect(res.status).toBe(201);
      expect(res.body.last_written_at).toBeNull();
      expect(res.body.last_error).toMatch(/^fetch failed \(.*ECONNREFUSED/);
      expect(res.body.last_error).not.toContain('secret-token');
      const listed = await s.t.request('GET', `/api/v3_0/assets/${s.asset}/price-connectors`, { token: s.token });
      expect(listed.body).toEqual([expect.objectContaining({ id: res.body.id, last_error: res.body.last_error })]);
      const notices = async () =>
        (await s.t.request('GET', '/api/v3_0/notifications', { token: s.token })).body.filter(
          (n: { kind: string }) => n.kind === 'prices-failed',
        );
      const [notice] = await notices();
      expect(notice).toMatchObject({ sensor_id: s.sensor });
      expect(notice.message).toContain(`price connector ${res.body.id}`);
      // Issue 32: named as people know them, not 'sensor 3' and an EIC code.
      expect(notice.message).not.toMatch(/sensor \d|10Y/);
      // Still down at the next tick: the same spell, no second notification.
      expect(await s.t.server.tariffs.tick(Date.now())).toBe(0);
      expect(await notices()).toHaveLength(1);
      expect(await s.values()).toEqual([]);
    } finally {
      await s.t.close();
    }
    // Without a token nothing is asked, and the connector says why it has no prices.
    const off = await withServer({ FLEXSITE_ENTSOE_URL: `${stubUrl}/api` });
    try {
      asked.length = 0;
      const res = await off.connect({ sensor: off.sensor, bidding_zone: NL });
      expect(res.status).toBe(201);
      expect(res.body.last_error).toMatch(/no ENTSO-E token is set/);
      expect(asked).toEqual([]);
    } finally {
      await off.t.close();
    }
  });
});

const accountOf = async (s: Awaited<ReturnType<typeof withServer>>): Promise<number> =>
  Number((await s.t.db('generic_asset').where({ id: s.asset }).first()).account_id);
