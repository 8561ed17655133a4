import { storeSensorData, type SensorUpload } from '../commands/storeSensorData.ts';
import { alreadyReceived } from '../presenters/index.ts';
import type { UploadEvent } from '../domain/sensorData.ts';
import { invalidReplacement } from '../errors.ts';
import type { CommandContext } from '../commands/context.ts';
import type { Principal } from '../policies/principal.ts';
import { ReplacementError } from '../store/beliefs.ts';
import type { SensorInContext } from '../store/sensors.ts';

/** The answer to an upload whose values were all new. */
export const PROCESSED = { status: 'PROCESSED', message: 'Request has been processed.' } as const;

/** The answer to an upload of which something was already known (note `results`). */
export const ALREADY_RECEIVED = {
  results: 'PROCESSED',
  status: 'ALREADY_RECEIVED_AND_SUCCESSFULLY_PROCESSED',
  message: 'Some of the data has already been received and successfully processed.',
} as const;

/**
 * Stores checked uploads as beliefs of the caller's own data source, all or nothing, and answers
 * as the v3.0 data endpoints and the legacy message endpoints do.
 * @param ctx the request.
 * @param user the caller, the data's source.
 * @param uploads the events per sensor, already in the sensors' units and resolutions.
 * @param loaded the sensors as the route read them in this request (the guard reads no others).
 * @returns PROCESSED, or ALREADY_RECEIVED when something was left out as unchanged; throws the
 *   403 INVALID_REPLACEMENT answer when a value would change without overwriting allowed, and
 *   the 403 INVALID_SENDER answer when the caller may not write to one of the sensors.
 */
export async function storeUploads(
  call: { context: CommandContext; principal: Principal },
  uploads: SensorUpload[],
  loaded: readonly SensorInContext[] = [],
): Promise<typeof PROCESSED | typeof ALREADY_RECEIVED> {
  try {
    // The routes check their sensors as they read them; the command guards the store itself.
    const result = await storeSensorData(call.context, call.principal, { uploads, loaded });
    return alreadyReceived(result) ? ALREADY_RECEIVED : PROCESSED;
  } catch (err) {
    throw err instanceof ReplacementError ? invalidReplacement() : err;
  }
}

/** `storeUploads` of the events of one sensor the route loaded (the v3.0 data endpoints). */
export const storeSensorUpload = (
  call: { context: CommandContext; principal: Principal },
  sensor: SensorInContext,
  events: readonly UploadEvent[],
) => storeUploads(call, [{ sensorId: sensor.id, eventResolutionMs: sensor.event_resolution_ms, events }], [sensor]);
