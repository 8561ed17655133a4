import type { DateTime } from 'luxon';
import { formatTimedelta } from '../domain/time.ts';
import { fieldError } from '../errors.ts';
import { authorize } from '../policies/access.ts';
import { auditActor, type Principal } from '../policies/principal.ts';
import { sensorAccess } from '../policies/references.ts';
import { deleteBeliefs } from '../store/write/beliefs.ts';
import type { SensorInContext } from '../store/sensors.ts';
import { getSource } from '../store/sources.ts';
import type { Writes } from './context.ts';

/** Which of a sensor's data goes: all of it, or one source's, or the events within [start, until]. */
export interface DataDeletion {
  source?: number;
  start?: DateTime;
  until?: DateTime;
}

/** A source that exists, and a window of at least one resolution step (422 otherwise). */
async function checkDeletion(context: Writes, sensor: SensorInContext, deletion: DataDeletion): Promise<void> {
  const { source, start, until } = deletion;
  if (source !== undefined && !(await getSource(context.db, source))) {
    throw fieldError('json', 'source', `No data source found with id ${source}.`);
  }
  if (!start || !until) return;
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

/** Deletes a sensor's data as asked (whoever may delete the sensor). @returns how many beliefs went. */
export async function deleteSensorData(
  context: Writes,
  principal: Principal,
  input: { sensor: SensorInContext; deletion: DataDeletion },
): Promise<number> {
  const { sensor, deletion } = input;
  authorize(principal, 'delete', sensorAccess(sensor));
  await checkDeletion(context, sensor, deletion);
  return deleteBeliefs(context.db, auditActor(principal), sensor, {
    sourceId: deletion.source,
    start: deletion.start,
    until: deletion.until,
  });
}
