import Router from '@koa/router';
import type { Config } from '../../config.ts';
import { allowedMethods, mount, publicRoute, type PlacedLater, type RouteSpec } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import { deprecationHeaders } from '../sunset.ts';
import { connectionEndpoints } from './connections.ts';
import { dataEndpoints } from './dataMessages.ts';
import { invalidMethod, processed } from './responses.ts';
import { udiEndpoints } from './udiMessages.ts';
import { v2AssetEndpoints } from './v2Assets.ts';
import { v2ChartEndpoints } from './v2Charts.ts';
import { v2UserEndpoints } from './v2Users.ts';
import { servedVersions, type LegacyVersion } from './versions.ts';

/**
 * API versions 1.0–2.0 served for real (`FLEXSITE_LEGACY_API=serve`): one router driven by the
 * version table (`versions.ts`), each route a small handler over the shared message parsing.
 */

/** A legacy endpoint, declared as every route is, for one version; the version table places it. */
type LegacyEndpoint = (v: LegacyVersion) => PlacedLater;

/** A message endpoint (`getMeterData`) rather than a 2.0 resource (`asset/:id`). */
const isMessage = (path: string) => /^(get|post)[A-Z]/.test(path);

/** The service listing of a version: its message endpoints by name, its resources by method and path. */
function getService(v: LegacyVersion) {
  const services = new Map<string, string>();
  for (const [method, path] of v.routes) {
    const name = isMessage(path) ? path : `${method} /${path.replace(/:(\w+)/g, '<$1>')}`;
    services.set(name, path === 'getService' ? SERVICE_SUMMARY : endpoints[`${method} ${path}`](v).summary);
  }
  return {
    version: v.version,
    services: [...services].map(([name, description]) => ({ name, description })),
    ...processed('GetServiceResponse'),
  };
}

/** Every legacy endpoint by method and route; the version table picks which a version has. */
const endpoints: Record<string, LegacyEndpoint> = {
  'GET getMeterData': dataEndpoints.getMeterData,
  'POST getMeterData': dataEndpoints.getMeterData,
  'POST postMeterData': dataEndpoints.postMeterData,
  'GET getPrognosis': dataEndpoints.getPrognosis,
  'POST postPrognosis': dataEndpoints.postPrognosis,
  'POST postPriceData': dataEndpoints.postPriceData,
  'POST postWeatherData': dataEndpoints.postWeatherData,
  'GET getConnection': connectionEndpoints.getConnection,
  'POST postUdiEvent': udiEndpoints.postUdiEvent,
  'GET getDeviceMessage': udiEndpoints.getDeviceMessage,
  ...v2AssetEndpoints,
  ...v2UserEndpoints,
  ...v2ChartEndpoints,
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
      return { ...endpoints[`${method} ${path}`](v), method, path: `/${path}` };
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
