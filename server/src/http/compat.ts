import type { Middleware } from 'koa';
import type { Config } from '../config.ts';

/** The FlexMeasures release whose answers the server gives, per `FLEXSITE_API_COMPAT` (PEP 440). */
export const flexmeasuresVersion = (config: Config): string => (config.apiCompat === '1.0' ? '1.0.0' : '0.18.1');

/** Whether 1.0's answer wins where 0.18 and 1.0 answer the same request differently. */
export const speaks10 = (config: Config): boolean => config.apiCompat === '1.0';

/**
 * Every answer names the server release (current clients pick endpoints and unit handling by it),
 * and answers under /api/v3_0 also the API version, as FlexMeasures does since API v3.0-30.
 */
export function versionHeaders(config: Config): Middleware {
  const version = flexmeasuresVersion(config);
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      ctx.set('FlexMeasures-Version', version);
      if (ctx.path === '/api/v3_0' || ctx.path.startsWith('/api/v3_0/')) ctx.set('API-Version', 'v3_0');
    }
  };
}
