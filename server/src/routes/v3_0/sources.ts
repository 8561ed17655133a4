import { z } from 'zod';
import { intText } from '../../contracts/fields.ts';
import * as wire from '../../contracts/responses.ts';
import { route } from '../../http/routes.ts';
import { readableAccountIds } from '../../policies/visibility.ts';
import { listSources, SOURCE_TYPES, type DataSource } from '../../store/sources.ts';
import { sensorById } from '../load.ts';

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
export const sourceRoutes = [
  route({
    method: 'GET',
    path: '/sources',
    summary: 'List the data sources the caller can see, optionally those with data on one sensor',
    request: { query: sourcesQuery },
    // Whoever may read a sensor's data may know who recorded it.
    load: async ({ db, query }) => ({
      sensor:
        query.sensor_id === undefined
          ? undefined
          : await sensorById(db, query.sensor_id, 'read', { location: 'query', field: 'sensor_id' }),
    }),
    async command({ db, user, loaded }) {
      let sources: DataSource[];
      if (loaded.sensor) {
        sources = await listSources(db, { sensorId: loaded.sensor.id });
      } else {
        // Readable accounts' sources, and system sources (no account, no user).
        const accounts = await readableAccountIds(db, user);
        sources = await listSources(db, accounts === 'all' ? {} : { visibleToAccounts: accounts });
      }
      const types = [...new Set([...SOURCE_TYPES, ...sources.map((s) => s.type)])];
      return { types, sources: sources.map(presentSource) };
    },
    response: { schema: wire.sourceList },
  }),
];
