import { z } from 'zod';
import { awareDateTime, id } from '../../contracts/fields.ts';
import { deleteSensorData } from '../../commands/deleteSensorData.ts';
import { route } from '../../http/routes.ts';
import { idParams, sensorById } from '../load.ts';

/**
 * DELETE /sensors/<id>/data (FlexMeasures 1.0): deletes a sensor's data, all of it or one
 * source's, optionally only the events within [start, until]. The body is optional.
 */
const deletionBody = z.preprocess(
  (body) => body ?? {},
  z.strictObject({ source: id.optional(), start: awareDateTime.optional(), until: awareDateTime.optional() }),
);

export const sensorDataDeleteRoutes = [
  route({
    method: 'DELETE',
    path: '/sensors/:id/data',
    summary: 'Delete sensor data',
    request: { params: idParams, json: deletionBody },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'delete') }),
    transaction: true,
    command: async ({ context, principal, body, loaded: { sensor } }) => {
      await deleteSensorData(context, principal, { sensor, deletion: body });
    },
    response: { status: 204, schema: null, description: 'the data deleted' },
  }),
];
