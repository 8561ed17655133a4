import { z } from 'zod';
import { awareDateTime, id } from '../../contracts/fields.ts';
import { fieldError } from '../../errors.ts';
import { actorOf, recordAudit } from '../../store/auditLog.ts';
import { route } from '../../http/routes.ts';
import { formatTimedelta } from '../../domain/time.ts';
import { deleteBeliefs } from '../../store/beliefs.ts';
import { getSource } from '../../store/sources.ts';
import { idParams, sensorById } from '../load.ts';

/**
 * DELETE /sensors/<id>/data (FlexMeasures 1.0): deletes a sensor's data, all of it or one
 * source's, optionally only the events within [start, until]. The body is optional.
 */
const deleteSensorData = z.preprocess(
  (body) => body ?? {},
  z.strictObject({ source: id.optional(), start: awareDateTime.optional(), until: awareDateTime.optional() }),
);

export const sensorDataDeleteRoutes = [
  route({
    method: 'DELETE',
    path: '/sensors/:id/data',
    summary: 'Delete sensor data',
    request: { params: idParams, json: deleteSensorData },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'delete') }),
    async check({ db, body, loaded: { sensor } }) {
      const { source, start, until } = body;
      if (source !== undefined && !(await getSource(db, source))) {
        throw fieldError('json', 'source', `No data source found with id ${source}.`);
      }
      if (start && until) {
        if (until < start) throw fieldError('json', 'until', "'until' must not be before 'start'.");
        const resolution = sensor.event_resolution_ms;
        if (resolution > 0 && until.toMillis() < start.toMillis() + resolution) {
          const r = formatTimedelta(resolution);
          throw fieldError(
            'json',
            'until',
            `For a sensor with resolution ${r}, 'until' must be at least one resolution step (${r}) after 'start'.`,
          );
        }
      }
    },
    transaction: true,
    command: async ({ db, user, body, loaded: { sensor } }) => {
      await deleteBeliefs(db, {
        sensorId: sensor.id,
        resolutionMs: sensor.event_resolution_ms,
        sourceId: body.source,
        startMs: body.start?.toMillis(),
        untilMs: body.until?.toMillis(),
      });
      // On the sensor's asset's log, worded as 1.0 does (times as Python prints them).
      const event = [
        `Deleted data for sensor '${sensor.name}': ${sensor.id}`,
        body.source !== undefined && `source: ${body.source}`,
        body.start && `from: ${body.start.toFormat('yyyy-MM-dd HH:mm:ssZZ')}`,
        body.until && `until: ${body.until.toFormat('yyyy-MM-dd HH:mm:ssZZ')}`,
      ].filter(Boolean);
      await recordAudit(db, actorOf(user), { assetId: sensor.generic_asset_id, accountId: sensor.account_id }, event.join(', '));
    },
    response: { status: 204, schema: null, description: 'the data deleted' },
  }),
];
