import { expect } from 'vitest';
import { factories } from './factories.ts';
import { headerLines, startTestServer, type RawResponse, type TestServer } from './testServer.ts';

/** The legacy versions as the reference lists them, written out independently of the server's table. */
export const VERSIONS = [
  { prefix: 'v1', version: '1.0' },
  { prefix: 'v1_1', version: '1.1' },
  { prefix: 'v1_2', version: '1.2' },
  { prefix: 'v1_3', version: '1.3' },
  { prefix: 'v2_0', version: '2.0' },
] as const;
export type Prefix = (typeof VERSIONS)[number]['prefix'];

/** The endpoint tables of the legacy spec (and reference §5.5), per version, written out independently of the server. */
const messages1_1 = [
  'GET getMeterData',
  'POST postMeterData',
  'GET getService',
  'GET getConnection',
  'POST postPriceData',
  'POST postWeatherData',
  'GET getPrognosis',
  'POST postPrognosis',
];
const udi = ['GET getDeviceMessage', 'POST postUdiEvent'];
export const LEGACY_ROUTES: Record<Prefix, string[]> = {
  v1: ['GET getMeterData', 'POST getMeterData', 'POST postMeterData', 'GET getService'],
  v1_1: messages1_1,
  v1_2: [...messages1_1, ...udi],
  v1_3: [...messages1_1, ...udi],
  v2_0: [
    ...messages1_1,
    ...udi,
    'GET assets',
    'POST assets',
    'GET asset/7',
    'PATCH asset/7',
    'DELETE asset/7',
    'GET users',
    'GET user/7',
    'PATCH user/7',
    'PATCH user/7/password-reset',
    'GET charts/power',
  ],
};
/** Versions having a route, by the version that introduced it. */
export const from = (first: Prefix) => VERSIONS.slice(VERSIONS.findIndex((v) => v.prefix === first)).map((v) => v.prefix);

/** A naming authority for addresses; the server does not compare it with its own host. */
export const EA = 'ea1.2018-06.localhost';

/** A 400 envelope of the message API. */
export const rejected = (status: string) => ({ result: 'Rejected', status, message: expect.any(String) });

/** The success envelope of a message endpoint. */
export const processed = (type: string) => ({ type, status: 'PROCESSED', message: 'Request has been processed.' });

/** Checks the deprecation headers of a legacy answer, as raw header lines. */
export function expectDeprecationHeaders(res: RawResponse, prefix: Prefix): void {
  expect(headerLines(res, 'deprecation')).toEqual(['Tue, 13 Dec 2022 23:59:59 GMT']);
  expect(headerLines(res, 'sunset')).toEqual(['Sun, 30 Apr 2023 23:59:59 GMT']);
  expect(headerLines(res, 'link')).toEqual([
    '<https://flexmeasures.readthedocs.io/en/latest/api/introduction.html#deprecation-and-sunset>; rel="deprecation"; type="text/html"',
    `<https://flexmeasures.readthedocs.io/en/v0.13.0/api/${prefix}.html>; rel="sunset"; type="text/html"`,
  ]);
}

/**
 * A server serving the legacy versions, with an account holding a member (account-admin), a
 * day-ahead market and a weather station; an admin and a stranger in other accounts.
 */
export async function legacySite() {
  const t: TestServer = await startTestServer({ FLEXSITE_LEGACY_API: 'serve' });
  const f = factories(t.db);
  const account = await f.account();
  const member = await f.user({ accountId: account.id, roles: ['account-admin'] });
  const admin = await f.user({ accountId: (await f.account()).id, roles: ['admin'] });
  const stranger = await f.user({ accountId: (await f.account()).id });
  const marketAsset = await f.asset({ accountId: account.id, type: 'transmission zone' });
  const market = await f.sensor({ assetId: marketAsset.id, name: 'epex_da', unit: 'EUR/MWh', resolutionMinutes: 60 });
  const station = await f.asset({ accountId: account.id, type: 'building' });
  await t.db('generic_asset').where({ id: station.id }).update({ latitude: 33.4843866, longitude: 126.477859 });
  const weather = {
    temperature: await f.sensor({ assetId: station.id, name: 'temperature', unit: '°C', resolutionMinutes: 60 }),
    irradiance: await f.sensor({ assetId: station.id, name: 'irradiance', unit: 'kW/m²', resolutionMinutes: 60 }),
    wind: await f.sensor({ assetId: station.id, name: 'wind speed', unit: 'm/s', resolutionMinutes: 60 }),
  };
  return {
    t,
    f,
    account,
    member,
    admin,
    stranger,
    market,
    weather,
    /** A battery of the account with a 15-minute MW power sensor (a connection), priced by the market. */
    async battery(props: { name?: string; unit?: string; market?: boolean } = {}) {
      const asset = await f.asset({ accountId: account.id, type: 'battery' });
      return f.sensor({
        assetId: asset.id,
        name: props.name,
        unit: props.unit ?? 'MW',
        resolutionMinutes: 15,
        attributes: {
          capacity_in_mw: 1,
          min_soc_in_mwh: 0,
          max_soc_in_mwh: 2,
          ...(props.market === false ? {} : { market_id: market.id }),
        },
      });
    },
    /** A message request with the member's token: GET as a query string, POST as JSON. */
    message(method: 'GET' | 'POST', path: string, message: Record<string, unknown>, token = member.token) {
      if (method === 'POST') return t.request('POST', path, { token, json: message });
      const query = Object.fromEntries(Object.entries(message).map(([k, v]) => [k, String(v)]));
      return t.request('GET', path, { token, query });
    },
  };
}

export type LegacySite = Awaited<ReturnType<typeof legacySite>>;

/** Connection addresses of a sensor in the old colon form and the `fm1` form. */
export const connection = (accountId: number, sensorId: number) => `${EA}:${accountId}:${sensorId}`;
export const fm1 = (sensorId: number) => `ea1.2021-01.io.flexmeasures:fm1.${sensorId}`;
