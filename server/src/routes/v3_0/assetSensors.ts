import { z } from 'zod';
import { intText } from '../../contracts/fields.ts';
import { searchTerms } from '../../domain/searchTerms.ts';
import * as wire from '../../contracts/responses.ts';
import { route } from '../../http/routes.ts';
import * as sensors from '../../store/sensors.ts';
import { assetById, idParams } from '../load.ts';
import { sensorJson } from './sensors.ts';

/**
 * GET /assets/<id>/sensors (FlexMeasures 1.0): the asset's own sensors, a page at a time. As
 * 1.0's code does (its docs say a bare list without `page`), the answer is always a page:
 * `per-page` 10 and page 1 unless given, with the asset's sensor count and the filtered count.
 */
const query = z.object({
  page: intText.pipe(z.number().min(1)).optional(),
  'per-page': intText.pipe(z.number().min(1).max(10_000)).optional(),
  per_page: intText.pipe(z.number().min(1).max(10_000)).optional(),
  filter: z.string().max(200).optional(),
  'sort-by': z.enum(['id', 'name', 'resolution']).optional(),
  sort_by: z.enum(['id', 'name', 'resolution']).optional(),
  'sort-dir': z.enum(['asc', 'desc']).optional(),
  sort_dir: z.enum(['asc', 'desc']).optional(),
});

/** A sensor matches a term in its name (any case), or a number its id starts with. */
const matches = (s: sensors.Sensor, term: string) =>
  s.name.toLowerCase().includes(term.toLowerCase()) || (/^\d+$/.test(term) && String(s.id).startsWith(term));

const sortKeys = {
  id: (s: sensors.Sensor) => s.id,
  name: (s: sensors.Sensor) => s.name,
  resolution: (s: sensors.Sensor) => s.event_resolution_ms,
};

export const assetSensorRoutes = [
  route({
    method: 'GET',
    path: '/assets/:id/sensors',
    summary: 'Return all sensors under an asset.',
    request: { params: idParams, query },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    async command({ db, query: q, loaded: { asset } }) {
      const all = await sensors.listSensors(db, { assetId: asset.id });
      const wanted = q.filter ? searchTerms(q.filter) : [];
      const found = wanted.length ? all.filter((s) => wanted.some((term) => matches(s, term))) : all;
      const sortBy = q['sort-by'] ?? q.sort_by;
      if (sortBy) {
        const key = sortKeys[sortBy];
        const dir = (q['sort-dir'] ?? q.sort_dir) === 'desc' ? -1 : 1;
        found.sort((a, b) => (key(a) < key(b) ? -dir : key(a) > key(b) ? dir : 0));
      }
      const perPage = q['per-page'] ?? q.per_page ?? 10;
      const from = ((q.page ?? 1) - 1) * perPage;
      return { page: found.slice(from, from + perPage), total: all.length, filtered: found.length };
    },
    response: {
      schema: z.looseObject({ data: z.array(wire.sensor), 'num-records': z.number(), 'filtered-records': z.number() }),
      present: ({ page, total, filtered }, ctx) => ({
        data: page.map((s) => sensorJson(ctx, s)),
        'num-records': total,
        'filtered-records': filtered,
      }),
    },
  }),
];
