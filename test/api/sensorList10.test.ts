/** FlexMeasures 1.0's pages, `filter` and `unit` on GET /api/v3_0/sensors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let token: string;
let otherToken: string;
let accountId: number;
let ids: Record<string, number>;

beforeAll(async () => {
  t = await startTestServer();
  const f = factories(t.db);
  accountId = (await f.account({ name: 'ACME corp' })).id;
  token = (await f.user({ accountId })).token;
  otherToken = (await f.user({ accountId: (await f.account()).id })).token;
  const roof = (await f.asset({ accountId, name: 'Roof' })).id;
  const cellar = (await f.asset({ accountId, name: 'Cellar battery' })).id;
  ids = {
    pv: (await f.sensor({ assetId: roof, name: 'PV power', unit: 'kW' })).id,
    irradiance: (await f.sensor({ assetId: roof, name: 'irradiance', unit: 'W/m²' })).id,
    power: (await f.sensor({ assetId: cellar, name: 'power', unit: 'MW' })).id,
    soc: (await f.sensor({ assetId: cellar, name: 'state of charge', unit: 'MWh' })).id,
  };
});
afterAll(() => t.close());

const list = async (query: Record<string, string | number>, as = token) => t.request('GET', '/api/v3_0/sensors', { token: as, query });
const namesOf = (body: { name: string }[]) => body.map((s) => s.name);

describe('GET /api/v3_0/sensors, 1.0 parameters', () => {
  it('without them: the plain list, as before', async () => {
    expect(namesOf((await list({})).body)).toEqual(['PV power', 'irradiance', 'power', 'state of charge']);
  });

  it('filter: any term in the sensor’s, asset’s or account’s name, or an id prefix', async () => {
    expect(namesOf((await list({ filter: 'POWER' })).body)).toEqual(['PV power', 'power']);
    expect(namesOf((await list({ filter: 'roof "of charge"' })).body)).toEqual(['PV power', 'irradiance', 'state of charge']);
    expect(namesOf((await list({ filter: 'acme' })).body)).toHaveLength(4);
    expect((await list({ filter: String(ids.soc) })).body.map((s: { id: number }) => s.id)).toContain(ids.soc);
  });

  it('unit, and pages counting the filtered sensors', async () => {
    expect(namesOf((await list({ unit: 'MWh' })).body)).toEqual(['state of charge']);
    const page = (await list({ page: 2, 'per-page': 1, filter: 'cellar' })).body;
    expect(page).toEqual({ data: [expect.objectContaining({ name: 'state of charge' })], 'num-records': 2, 'filtered-records': 2 });
  });

  it('another account’s sensors stay refused (403)', async () => {
    expect((await list({ account: accountId, filter: 'power' }, otherToken)).status).toBe(403);
  });
});

describe('GET /api/v3_0/sensors: include_public_assets, include_consultancy_clients (1.0)', () => {
  let consultancy: number;
  let consultant: string;
  let memberOfConsultancy: string;
  let publicSensor: number;
  let clientSensor: number;
  let ownSensor: number;

  beforeAll(async () => {
    const f = factories(t.db);
    consultancy = (await f.account()).id;
    consultant = (await f.user({ accountId: consultancy, roles: ['consultant'] })).token;
    memberOfConsultancy = (await f.user({ accountId: consultancy })).token;
    const client = (await f.account({ consultancyAccountId: consultancy })).id;
    ownSensor = (await f.sensor({ assetId: (await f.asset({ accountId: consultancy })).id })).id;
    clientSensor = (await f.sensor({ assetId: (await f.asset({ accountId: client })).id })).id;
    publicSensor = (await f.sensor({ assetId: (await f.asset({ accountId: null })).id, name: 'public price' })).id;
  });
  const idsOf = (body: { id: number }[]) => body.map((s) => s.id);

  it('include_public_assets adds the public assets’ sensors', async () => {
    expect(idsOf((await list({}, memberOfConsultancy)).body)).toEqual([ownSensor]);
    expect(idsOf((await list({ include_public_assets: 'true' }, memberOfConsultancy)).body)).toEqual([ownSensor, publicSensor]);
    expect(idsOf((await list({ include_public_assets: 'false' }, memberOfConsultancy)).body)).toEqual([ownSensor]);
  });

  it('include_consultancy_clients adds the client accounts’ sensors for a consultant only', async () => {
    expect(idsOf((await list({ include_consultancy_clients: 'true' }, consultant)).body)).toEqual([ownSensor, clientSensor]);
    // A member without the consultant role cannot read the clients: nothing is added.
    expect(idsOf((await list({ include_consultancy_clients: 'true' }, memberOfConsultancy)).body)).toEqual([ownSensor]);
    // Another account's consultant names the consultancy: refused as before.
    expect((await list({ account: consultancy, include_consultancy_clients: 'true' }, otherToken)).status).toBe(403);
  });

  it('bad flags are a 422 under their name', async () => {
    const res = await list({ include_public_assets: 'maybe' });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('include_public_assets');
  });
});
