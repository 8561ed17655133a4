import { publicRoute, type RouteSpec } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import { readiness } from '../api.ts';
import { speaks10 } from '../../http/compat.ts';
import { openApiDocument } from '../openapi.ts';
import { accountRoutes } from './accounts.ts';
import { auditLogRoutes } from './auditLogs.ts';
import { annotationRoutes } from './annotations.ts';
import { assetRoutes } from './assets.ts';
import { assetSensorRoutes } from './assetSensors.ts';
import { automationRoutes } from './automations.ts';
import { batteryReplayRoutes } from './batteryReplay.ts';
import { chartRoutes } from './charts.ts';
import { cockpitRoutes } from './cockpit.ts';
import { deviceRoutes } from './devices.ts';
import { notificationRoutes } from './notifications.ts';
import { tariffRoutes } from './tariffs.ts';
import { forecastRoutes } from './forecasts.ts';
import { jobRoutes } from './jobs.ts';
import { mqttLinkRoutes } from './mqttLinks.ts';
import { quickref10 } from './quickref10.ts';
import { scheduleRoutes } from './schedules.ts';
import { sensorDataRoutes } from './sensorData.ts';
import { sensorDataDeleteRoutes } from './sensorDataDelete.ts';
import { sensorRoutes } from './sensors.ts';
import { passwordRoutes } from './passwords.ts';
import { sensorStatusRoutes } from './sensorStatus.ts';
import { setupRoutes } from './setup.ts';
import { sourceRoutes } from './sources.ts';
import { userRoutes } from './users.ts';

export const V3_PREFIX = '/api/v3_0';

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Koa `:id` placeholders written the way the reference lists them, `<id>`. */
const ruleOf = (path: string) => path.replace(/:(\w+)/g, '<$1>');

/** Every v3.0 endpoint. Order matters where paths overlap: `/assets/public` before `/assets/:id`. */
export function v3Routes(): RouteSpec[] {
  const resources: RouteSpec[] = [
    ...assetRoutes,
    ...assetSensorRoutes,
    ...sensorDataRoutes,
    ...sensorDataDeleteRoutes,
    ...sensorRoutes,
    ...sensorStatusRoutes,
    ...sourceRoutes,
    ...userRoutes,
    ...passwordRoutes,
    ...accountRoutes,
    ...auditLogRoutes,
    ...jobRoutes,
    ...scheduleRoutes,
    ...forecastRoutes,
    ...automationRoutes,
    ...setupRoutes,
    ...chartRoutes,
    ...annotationRoutes,
    ...cockpitRoutes,
    ...batteryReplayRoutes,
    ...notificationRoutes,
    ...tariffRoutes,
    ...deviceRoutes,
    ...mqttLinkRoutes,
  ];
  const all: RouteSpec[] = [
    publicRoute({
      method: 'GET',
      path: '',
      summary: 'Obtain a service listing for this version',
      command: async ({ ctx }) => {
        const root = `${ctx.protocol}://${ctx.host}`;
        const v10 = speaks10(ctx.services.config);
        const services = all
          .map((r) => {
            const name = `${r.method} ${ruleOf(r.path)}`;
            return { description: (v10 && quickref10[name]) || r.summary, name, url: root + V3_PREFIX + ruleOf(r.path) };
          })
          // Code-point order, as Python sorts (`/` before `_`), not the locale's.
          .sort((a, b) => compare(a.url, b.url) || compare(a.name, b.name));
        return { message: 'Request has been processed.', services, status: 'PROCESSED', version: '3.0' };
      },
      response: { schema: wire.serviceListing },
    }),
    publicRoute({
      method: 'GET',
      path: '/health/ready',
      summary: 'Get readiness status',
      command: ({ ctx }) => readiness(ctx),
      response: { schema: wire.readinessAnswer, status: (r) => r.status, description: 'ready (200) or not (503)' },
    }),
    publicRoute({
      method: 'GET',
      path: '/openapi.json',
      summary: 'OpenAPI 3.1 description of this API',
      command: async ({ ctx }) => openApiDocument(all, V3_PREFIX, `${ctx.protocol}://${ctx.host}`),
      response: { schema: wire.openApiAnswer },
    }),
    ...resources,
  ];
  return all;
}
