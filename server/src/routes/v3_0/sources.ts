import { z } from 'zod';
import { intText } from '../../contracts/fields.ts';
import { parseInput } from '../../http/validate.ts';
import type { RouteSpec } from '../../http/routes.ts';
import { authorize } from '../../policies/access.ts';
import { listClientAccounts } from '../../store/accounts.ts';
import { listSources, SOURCE_TYPES, type DataSource } from '../../store/sources.ts';
import { loadSensor, ownedAccess } from './load.ts';

const sourcesQuery = z.object({ sensor_id: intText.optional() });

const presentSource = (s: DataSource) => ({
  id: s.id,
  name: s.name,
  type: s.type,
  model: s.model,
  version: s.version,
  account_id: s.account_id,
  user_id: s.user_id,
});

/** `GET /sources`: the ids that the `source` filter of a data download takes. */
export const sourceRoutes: RouteSpec[] = [
  {
    method: 'GET',
    path: '/sources',
    summary: 'List the data sources the caller can see, optionally those with data on one sensor',
    request: { query: sourcesQuery },
    async handler(ctx) {
      const user = ctx.state.user!;
      const { db } = ctx.services;
      const query = parseInput(sourcesQuery, ctx.query, 'query');
      let sources: DataSource[];
      if (query.sensor_id !== undefined) {
        // Whoever may read a sensor's data may know who recorded it.
        const sensor = await loadSensor(ctx, query.sensor_id, { location: 'query', field: 'sensor_id' });
        authorize(user, 'read', await ownedAccess(ctx, 'sensor', sensor.account_id));
        sources = await listSources(db, { sensorId: sensor.id });
      } else if (user.roles.includes('admin') || user.roles.includes('admin-reader')) {
        sources = await listSources(db);
      } else {
        // Own account, consultancy clients, and system sources (no account, no user).
        const clients = user.roles.includes('consultant') ? await listClientAccounts(db, user.account_id) : [];
        sources = await listSources(db, { visibleToAccounts: [user.account_id, ...clients.map((a) => a.id)] });
      }
      const types = [...new Set([...SOURCE_TYPES, ...sources.map((s) => s.type)])];
      ctx.body = { types, sources: sources.map(presentSource) };
    },
  },
];
