import { z } from 'zod';
import { awareDateTime } from '../../contracts/fields.ts';
import * as cockpit from '../../contracts/cockpit.ts';
import { assetKpis, sensorKpis } from '../../queries/assetKpis.ts';
import { can } from '../../policies/access.ts';
import { sensorAccess } from '../../policies/references.ts';
import { siteNow } from '../../queries/siteNow.ts';
import { fieldError } from '../../errors.ts';
import { route } from '../../http/routes.ts';
import { assetById, idParams } from '../load.ts';

const MAX_KPI_WINDOW_MS = 400 * 86_400_000;

const kpiQuery = z.object({ start: awareDateTime, end: awareDateTime });

/** The operator's cockpit: what a site's schedules save, and what its sensors say now. */
export const cockpitRoutes = [
  route({
    method: 'GET',
    path: '/assets/:id/kpis',
    summary: "Get the cost of an asset's schedules against doing nothing, planned and realised, per day and month",
    request: { params: idParams, query: kpiQuery },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    check: ({ query }) => {
      const [startMs, endMs] = [query.start.toMillis(), query.end.toMillis()];
      if (endMs <= startMs) throw fieldError('query', 'end', 'Must be after start.');
      // A bound on the work one request makes: a year and a bit covers the monthly view.
      if (endMs - startMs > MAX_KPI_WINDOW_MS) throw fieldError('query', 'end', 'The window may span at most 400 days.');
      return { startMs, endMs };
    },
    // FlexMeasures 1.0 answers this path with its sensor KPIs under `data`; Flexsite adds them to its money figures.
    command: async ({ db, user, loaded, checked }) => ({
      ...(await assetKpis(db, loaded.asset.id, checked.startMs, checked.endMs)),
      data: await sensorKpis(db, loaded.asset, checked, (sensor) => can(user, 'read', sensorAccess(sensor))),
    }),
    response: { schema: cockpit.assetKpis },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/now',
    summary: 'Get the latest value of each sensor of a site, its age and the health of its data',
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ ctx, db, loaded }) => siteNow(db, loaded.asset.id, ctx.services.clock.now()),
    response: { schema: cockpit.siteNow },
  }),
];
