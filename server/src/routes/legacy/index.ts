import Router from '@koa/router';
import type { Config } from '../../config.ts';
import { z } from 'zod';
import { allowedMethods, mount, publicRoute, route, type RouteSpec } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import { deprecationHeaders } from '../sunset.ts';
import { connectionEndpoints } from './connections.ts';
import { dataEndpoints } from './dataMessages.ts';
import { invalidMethod, processed } from './responses.ts';
import type { LegacyCall } from './message.ts';
import { udiEndpoints } from './udiMessages.ts';
import { v2AssetEndpoints } from './v2Assets.ts';
import { v2ChartEndpoints } from './v2Charts.ts';
import { v2UserEndpoints } from './v2Users.ts';
import { servedVersions, type LegacyVersion } from './versions.ts';

/**
 * API versions 1.0–2.0 served for real (`FLEXSITE_LEGACY_API=serve`): one router driven by the
 * version table (`versions.ts`), each route a small handler over the shared message parsing.
 */

interface LegacyEndpoint {
  summary: string;
  /** The answer's schema; `null` for the empty 204. */
  schema: z.ZodType | null;
  /** The success status, when not 200. */
  status?: number;
  handler: (call: LegacyCall, v: LegacyVersion) => Promise<unknown>;
}

/** A message endpoint (`getMeterData`) rather than a 2.0 resource (`asset/:id`). */
const isMessage = (path: string) => /^(get|post)[A-Z]/.test(path);

/** The service listing of a version: its message endpoints by name, its resources by method and path. */
function getService(v: LegacyVersion) {
  const services = new Map<string, string>();
  for (const [method, path] of v.routes) {
    const name = isMessage(path) ? path : `${method} /${path.replace(/:(\w+)/g, '<$1>')}`;
    services.set(name, path === 'getService' ? SERVICE_SUMMARY : endpoints[`${method} ${path}`].summary);
  }
  return {
    version: v.version,
    services: [...services].map(([name, description]) => ({ name, description })),
    ...processed('GetServiceResponse'),
  };
}

/** Every legacy endpoint by method and route; the version table picks which a version has. */
const endpoints: Record<string, LegacyEndpoint> = {
  'GET getMeterData': { summary: 'Download meter data', schema: wire.legacyAnswer, handler: dataEndpoints.getMeterData },
  'POST getMeterData': { summary: 'Download meter data', schema: wire.legacyAnswer, handler: dataEndpoints.getMeterData },
  'POST postMeterData': { summary: 'Upload meter data', schema: wire.legacyAnswer, handler: dataEndpoints.postMeterData },
  'GET getPrognosis': { summary: 'Download prognoses', schema: wire.legacyAnswer, handler: dataEndpoints.getPrognosis },
  'POST postPrognosis': { summary: 'Upload prognoses', schema: wire.legacyAnswer, handler: dataEndpoints.postPrognosis },
  'POST postPriceData': { summary: 'Upload prices', schema: wire.legacyAnswer, handler: dataEndpoints.postPriceData },
  'POST postWeatherData': { summary: 'Upload weather data', schema: wire.legacyAnswer, handler: dataEndpoints.postWeatherData },
  'GET getConnection': { summary: 'List your connections', schema: wire.legacyAnswer, handler: connectionEndpoints.getConnection },
  'POST postUdiEvent': {
    summary: 'Send a state-of-charge (UDI) event of a device',
    schema: wire.legacyAnswer,
    handler: udiEndpoints.postUdiEvent,
  },
  'GET getDeviceMessage': {
    summary: 'Download the schedule for a UDI event',
    schema: wire.legacyAnswer,
    handler: udiEndpoints.getDeviceMessage,
  },
  'GET assets': { summary: 'List assets', schema: z.array(wire.v2Asset), handler: v2AssetEndpoints['GET assets'] },
  'POST assets': { summary: 'Create an asset', schema: wire.v2Asset, status: 201, handler: v2AssetEndpoints['POST assets'] },
  'GET asset/:id': { summary: 'Get an asset', schema: wire.v2Asset, handler: v2AssetEndpoints['GET asset/:id'] },
  'PATCH asset/:id': { summary: 'Update an asset', schema: wire.v2Asset, handler: v2AssetEndpoints['PATCH asset/:id'] },
  'DELETE asset/:id': { summary: 'Delete an asset and its data', schema: null, status: 204, handler: v2AssetEndpoints['DELETE asset/:id'] },
  'GET users': { summary: 'List users', schema: z.array(wire.v2User), handler: v2UserEndpoints['GET users'] },
  'GET user/:id': { summary: 'Get a user', schema: wire.v2User, handler: v2UserEndpoints['GET user/:id'] },
  'PATCH user/:id': { summary: 'Update a user', schema: wire.v2User, handler: v2UserEndpoints['PATCH user/:id'] },
  'PATCH user/:id/password-reset': {
    summary: "Reset a user's password",
    schema: wire.processedAnswer,
    handler: v2UserEndpoints['PATCH user/:id/password-reset'],
  },
  'GET charts/power': {
    summary: 'Download a power chart of an asset',
    schema: wire.chartSpec,
    handler: v2ChartEndpoints['GET charts/power'],
  },
};

const SERVICE_SUMMARY = 'Obtain a service listing for this version';

/**
 * The middleware serving `/api/v1`, `/api/v1_1`, `/api/v1_2`, `/api/v1_3` and `/api/v2_0`. Every
 * answer under these prefixes carries the deprecation headers, errors included; a path the
 * version lacks (a later version's route, say) is 404, a wrong method 405 INVALID_METHOD.
 * @param config the settings (sunset date and link).
 * @returns the middleware; it must run before the main API router.
 */
export function legacyApi(config: Config): ReturnType<Router['routes']> {
  const router = new Router({ strict: true });
  for (const v of servedVersions) {
    const specs: RouteSpec[] = v.routes.map(([method, path]) => {
      if (path === 'getService') {
        return publicRoute({
          method,
          path: `/${path}`,
          summary: SERVICE_SUMMARY,
          command: async () => getService(v),
          response: { schema: wire.legacyAnswer },
        });
      }
      const endpoint = endpoints[`${method} ${path}`];
      return route({
        method,
        path: `/${path}`,
        summary: endpoint.summary,
        // Messages name their sensors in ways of their own (connections, markets, events): the
        // endpoints resolve and authorize them through policies/ as they read the message.
        command: (call) => endpoint.handler(call, v),
        response: { schema: endpoint.schema, status: endpoint.status },
      });
    });
    mount(router, specs, `/api/${v.prefix}`);
  }
  const routes = router.routes();
  const methods = allowedMethods(router, invalidMethod);
  const headers = new Map(servedVersions.map((v) => [v.prefix, deprecationHeaders(config, v.doc)]));
  // Like the router's own middleware, this one names its router (for the route-listing test).
  return Object.assign(
    async (ctx: Parameters<typeof routes>[0], next: () => Promise<unknown>) => {
      const prefix = /^\/api\/(v\d(?:_\d)?)(?:\/|$)/.exec(ctx.path)?.[1];
      const versionHeaders = prefix && headers.get(prefix);
      if (!versionHeaders) return next();
      ctx.set(versionHeaders);
      // Nothing after this answers these prefixes: an unmatched path stays the 404 it is. (The
      // router types its two middlewares' contexts differently; at run time it is one context.)
      await routes(ctx, () => methods(ctx as Parameters<typeof methods>[0], async () => {}));
    },
    { router },
  ) as unknown as ReturnType<Router['routes']>;
}
