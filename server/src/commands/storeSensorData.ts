import { rightsOf, type Principal } from '../policies/principal.ts';
import { authorizeReferences, type Reference } from '../policies/references.ts';
import type { SensorInContext } from '../store/sensors.ts';
import type { SourceProps } from '../store/sources.ts';
import { commitUploads, saveUploads, type StoredUploads, type SensorUpload } from '../store/write/uploads.ts';
import type { Uses } from './context.ts';

// The command's input speaks of uploads as the store writes them.
export type { SensorUpload } from '../store/write/uploads.ts';

/**
 * Storing sensor data, the one way every caller writes measurements and forecasts as beliefs (the
 * v3.0 data endpoints, the legacy messages, the CLI's CSV import): each sensor is authorized for
 * writing by the principal, and the data is stored as the principal's own source. No HTTP context:
 * a refused sensor is the API's 403, an unknown one its 422; a replacement that is not allowed
 * throws `ReplacementError`, each caller answering it in its own words.
 */

/** What to store: the events per sensor, and for the operator, the source to store them as. */
export interface SensorDataInput {
  uploads: SensorUpload[];
  /** The sensors as the caller has read them already, which are not read again to authorize them. */
  loaded?: readonly SensorInContext[];
  /** The operator's choice of source; a user's (or automation's) data is always their own source. */
  source?: SourceProps;
  /** Makes the work go in chunks of its own transaction, reporting progress (a large import). */
  onProgress?: (done: number, total: number) => void;
}

/** The source a principal's data is stored as: a user's or device's own, the operator's choice. */
function sourceOf(principal: Principal, named: SourceProps | undefined): SourceProps {
  // A device's readings are the device's own, in its maker's account.
  if (principal.kind === 'device')
    return { name: principal.linkName, type: 'device', model: 'mqtt', accountId: principal.owner.account_id };
  const user = rightsOf(principal);
  if (user) return { name: user.username, type: 'user', userId: user.id, accountId: user.account_id };
  if (!named) throw new Error('the operator names the source of the data');
  return named;
}

/**
 * Stores the events as beliefs, all or none.
 * @returns what was stored, and the id of the source.
 * @throws the 403 answer for a sensor the principal may not write, `ReplacementError` for a
 *   replacement that is not allowed.
 */
export async function storeSensorData(
  context: Uses<'reader' | 'config'>,
  principal: Principal,
  input: SensorDataInput,
): Promise<StoredUploads> {
  const refs = input.uploads.map((u): Reference => ({ kind: 'sensor', id: u.sensorId, use: 'write', location: 'json', field: 'sensor' }));
  await authorizeReferences(context.reader, principal, refs, input.loaded);
  const props = { uploads: input.uploads, source: sourceOf(principal, input.source), allowOverwrite: context.config.allowDataOverwrite };
  // A large import goes in chunks and says how far it got; requests share transactions (group commit).
  return input.onProgress ? saveUploads(context.db, { ...props, onProgress: input.onProgress }) : commitUploads(context.db, props);
}
