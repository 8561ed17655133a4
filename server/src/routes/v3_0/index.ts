import type { RouteSpec } from '../../http/routes.ts';
import { readiness } from '../api.ts';
import { speaks10 } from '../../http/compat.ts';
import { openApiDocument } from '../openapi.ts';
import { accountRoutes } from './accounts.ts';
import { annotationRoutes } from './annotations.ts';
import { assetRoutes } from './assets.ts';
import { automationRoutes } from './automations.ts';
import { chartRoutes } from './charts.ts';
import { forecastRoutes } from './forecasts.ts';
import { jobRoutes } from './jobs.ts';
import { quickref10 } from './quickref10.ts';
import { scheduleRoutes } from './schedules.ts';
import { sensorDataRoutes } from './sensorData.ts';
import { sensorRoutes } from './sensors.ts';
import { setupRoutes } from './setup.ts';
import { sourceRoutes } from './sources.ts';
import { userRoutes } from './users.ts';

export const V3_PREFIX = '/api/v3_0';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Koa `:id` placeholders written the way the reference lists them, `<id>`. */
const ruleOf = (path: string) => path.replace(/:(\w+)/g, '<$1>');

/** Every v3.0 endpoint. Order matters where paths overlap: `/assets/public` before `/assets/:id`. */
export function v3Routes(): RouteSpec[] {
  const resources: RouteSpec[] = [...assetRoutes, ...sensorDataRoutes, ...sensorRoutes, ...sourceRoutes, ...userRoutes, ...accountRoutes, ...jobRoutes, ...scheduleRoutes, ...forecastRoutes, ...automationRoutes, ...setupRoutes, ...chartRoutes, ...annotationRoutes];
  const all: RouteSpec[] = [
    {
      method: 'GET',
      path: '',
      summary: 'Obtain a service listing for this version',
      public: true,
      async handler(ctx) {
        const root = `${ctx.protocol}://${ctx.host}`;
        const v10 = speaks10(ctx.services.config);
        const services = all
          .map((r) => {
            const name = `${r.method} ${ruleOf(r.path)}`;
            return { description: (v10 && quickref10[name]) || r.summary, name, url: root + V3_PREFIX + ruleOf(r.path) };
          })
          // Code-point order, as Python sorts (`/` before `_`), not the locale's.
          .sort((a, b) => compare(a.url, b.url) || compare(a.name, b.name));
        ctx.body = { message: 'Request has been processed.', services, status: 'PROCESSED', version: '3.0' };
      },
    },
    {
      method: 'GET',
      path: '/health/ready',
      summary: 'Get readiness status',
      public: true,
      handler: readiness,
    },
    {
      method: 'GET',
      path: '/openapi.json',
      summary: 'OpenAPI 3.1 description of this API',
      public: true,
      async handler(ctx) {
        ctx.body = openApiDocument(all, V3_PREFIX, `${ctx.protocol}://${ctx.host}`);
      },
    },
    ...resources,
  ];
  return all;
}
