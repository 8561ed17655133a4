import Router from '@koa/router';
import type { Config } from '../config.ts';
import type { Method } from '../http/routes.ts';

/** The routes of the sunset versions, per version prefix, as the reference keeps them. */
const meterAndService: [Method, string][] = [
  ['GET', 'getConnection'],
  ['POST', 'postPriceData'],
  ['POST', 'postWeatherData'],
  ['GET', 'getPrognosis'],
  ['GET', 'getMeterData'],
  ['POST', 'postMeterData'],
  ['POST', 'postPrognosis'],
  ['GET', 'getService'],
];
const udi: [Method, string][] = [
  ['GET', 'getDeviceMessage'],
  ['POST', 'postUdiEvent'],
];

export const legacyVersions: { prefix: string; version: string; doc: string; routes: [Method, string][] }[] = [
  {
    prefix: 'v1',
    version: '1.0',
    doc: 'v1',
    routes: [
      ['GET', 'getMeterData'],
      ['POST', 'getMeterData'],
      ['POST', 'postMeterData'],
      ['GET', 'getService'],
    ],
  },
  { prefix: 'v1_1', version: '1.1', doc: 'v1_1', routes: meterAndService },
  { prefix: 'v1_2', version: '1.2', doc: 'v1_2', routes: [...udi, ...meterAndService] },
  { prefix: 'v1_3', version: '1.3', doc: 'v1_3', routes: [...udi, ...meterAndService] },
  {
    prefix: 'v2_0',
    version: '2.0',
    doc: 'v2_0',
    routes: [
      ['GET', 'assets'],
      ['POST', 'assets'],
      ['GET', 'asset/:id'],
      ['PATCH', 'asset/:id'],
      ['DELETE', 'asset/:id'],
      ['GET', 'users'],
      ['GET', 'user/:id'],
      ['PATCH', 'user/:id'],
      ['PATCH', 'user/:id/password-reset'],
      ...meterAndService,
      ...udi,
      // Not among the reference's sunset routes, but a 2.0 endpoint all the same: answered like the others.
      ['GET', 'charts/power'],
    ],
  },
];

/**
 * The deprecation headers every response of a legacy version carries, served or sunset.
 * @returns header name → value(s); `Link` has two values, sent as two header lines.
 */
export function deprecationHeaders(config: Config, doc: string): Record<string, string | string[]> {
  const sunsetLink = config.sunsetLink ?? `https://flexmeasures.readthedocs.io/en/v0.13.0/api/${doc}.html`;
  return {
    Deprecation: 'Tue, 13 Dec 2022 23:59:59 GMT',
    Sunset: config.sunsetDate ?? 'Sun, 30 Apr 2023 23:59:59 GMT',
    Link: [
      '<https://flexmeasures.readthedocs.io/en/latest/api/introduction.html#deprecation-and-sunset>; rel="deprecation"; type="text/html"',
      `<${sunsetLink}>; rel="sunset"; type="text/html"`,
    ],
  };
}

/**
 * Routes of the versions 1.0–2.0, each answering 410 Gone with the deprecation headers.
 * @param router the /api router to add them to.
 * @param config the settings (sunset date and link overrides).
 */
export function mountSunset(router: Router, config: Config): void {
  for (const v of legacyVersions) {
    const headers = deprecationHeaders(config, v.doc);
    const link = config.sunsetLink ?? `https://flexmeasures.readthedocs.io/en/v0.13.0/api/${v.doc}.html`;
    for (const [method, path] of v.routes) {
      router[method.toLowerCase() as 'get'](`/${v.prefix}/${path}`, (ctx) => {
        ctx.set(headers);
        ctx.status = 410;
        ctx.body = {
          message: `API version ${v.version} has been sunset. Please upgrade to API version 3.0. See ${link} for more information.`,
          status: 410,
        };
      });
    }
  }
}
