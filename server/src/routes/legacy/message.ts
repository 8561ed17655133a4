import type { Knex } from 'knex';
import type { User } from '../../store/users.ts';
import type { DateTime } from 'luxon';
import { sensorValues } from '../../contracts/sensorData.ts';
import { parseAwareDateTime, parseIsoDuration } from '../../domain/time.ts';
import type { BeliefTiming } from '../../domain/sensorData.ts';
import { isValidUnit } from '../../domain/units.ts';
import type { AppContext } from '../../http/context.ts';
import { fieldMessages } from '../../contracts/validate.ts';
import { legacyError, shown, type LegacyErrorName } from './responses.ts';

/**
 * Reading the fields of legacy messages. These versions answer each problem with the USEF
 * status name of the field at fault rather than with a list of field messages, so each reader
 * throws the first problem it finds.
 */

export type Message = Record<string, unknown>;

/** What the route chain hands a legacy endpoint: the request, the authenticated caller, the store. */
export interface LegacyCall {
  ctx: AppContext;
  user: User;
  db: Knex;
}

/**
 * The message of a request: the JSON body, and for GET requests the query parameters over it
 * (devices send download requests as query strings).
 */
export function readMessage(ctx: AppContext): Message {
  const body: unknown = ctx.request.body;
  const fromBody = body && typeof body === 'object' && !Array.isArray(body) ? (body as Message) : {};
  return ctx.method === 'GET' ? { ...fromBody, ...ctx.query } : fromBody;
}

/** Throws INVALID_MESSAGE_TYPE unless the message declares the endpoint's type. */
export function expectType(msg: Message, type: string): void {
  if (msg.type !== type) {
    throw legacyError('INVALID_MESSAGE_TYPE', `This endpoint takes messages of type '${type}', not ${shown(msg.type)}.`);
  }
}

/**
 * Reads an optional timezone-aware datetime.
 * @param invalid the status name for text that is no datetime.
 * @returns the datetime, or undefined when the field is absent; throws INVALID_TIMEZONE for a
 *   datetime without UTC offset.
 */
export function readDateTime(value: unknown, field: string, invalid: LegacyErrorName): DateTime | undefined {
  if (value === undefined) return undefined;
  const dt = typeof value === 'string' && value.length <= 64 ? parseAwareDateTime(value) : 'invalid';
  if (dt === 'naive')
    throw legacyError('INVALID_TIMEZONE', `The ${field} ${shown(value)} should state its UTC offset, e.g. '+01:00' or 'Z'.`);
  if (dt === 'invalid') throw legacyError(invalid, `The ${field} ${shown(value)} is not an ISO 8601 datetime.`);
  return dt;
}

/**
 * Reads an optional ISO 8601 duration of fixed, positive length in whole minutes.
 * @param invalid the status name for anything else.
 * @returns milliseconds, or undefined when the field is absent.
 */
export function readDuration(value: unknown, field: string, invalid: LegacyErrorName = 'INVALID_PERIOD'): number | undefined {
  if (value === undefined) return undefined;
  const d = typeof value === 'string' && value.length <= 64 ? parseIsoDuration(value) : 'invalid';
  if (typeof d === 'string' || d.nominal || d.ms <= 0 || d.ms % 60_000 !== 0) {
    throw legacyError(invalid, `The ${field} ${shown(value)} is not a positive ISO 8601 duration in whole minutes.`);
  }
  return d.ms;
}

/** The period of a data message: `start` and `duration`, both required. */
export function readPeriod(msg: Message): { start: DateTime; durationMs: number } {
  const missing = ['start', 'duration'].filter((f) => msg[f] === undefined);
  if (missing.length) throw legacyError('REQUIRED_INFO_MISSING', `The message lacks ${missing.join(' and ')}.`);
  return { start: readDateTime(msg.start, 'start', 'INVALID_PERIOD')!, durationMs: readDuration(msg.duration, 'duration')! };
}

/**
 * Reads the `unit`, which must be present and acceptable for the message.
 * @param accepts whether a (valid) unit suits the message.
 * @param expected what the message needs, for the error message ("a power unit such as MW").
 * @returns the unit; throws INVALID_UNIT otherwise.
 */
export function readUnit(msg: Message, accepts: (unit: string) => boolean, expected: string): string {
  const unit = msg.unit;
  if (typeof unit !== 'string' || unit.length > 80 || !isValidUnit(unit) || !accepts(unit)) {
    throw legacyError('INVALID_UNIT', `Data for this message should be given in ${expected}, not ${shown(unit)}.`);
  }
  return unit;
}

/** A belief horizon: `PT6H`, `-PT15M`; with `R/` (a repeating interval) it applies to every value on its own. */
export interface Horizon {
  ms: number;
  rolling: boolean;
}

/** Reads an optional horizon (`PT6H`, `-PT10M`, `R/PT6H`); INVALID_HORIZON when unreadable. */
export function readHorizon(value: unknown): Horizon | undefined {
  if (value === undefined) return undefined;
  const m = typeof value === 'string' ? /^(-?)(R\d*\/)?(.{1,64})$/.exec(value) : null;
  const d = m ? parseIsoDuration(m[1] + m[3]) : 'invalid';
  if (!m || typeof d === 'string' || d.nominal) {
    throw legacyError('INVALID_HORIZON', `The horizon ${shown(value)} is not an ISO 8601 duration such as 'PT6H', '-PT15M' or 'R/PT6H'.`);
  }
  return { ms: d.ms, rolling: Boolean(m[2]) };
}

/**
 * When uploaded values were known. A `prior` (version 2.0) is the belief time of all values.
 * A rolling horizon (`R/PT6H`) is each value's own horizon; a plain one counts back from the end
 * of the whole period, so that all values share one belief time. Without either, the values are
 * known now.
 * @returns the timing, and whether the sender stated it.
 */
export function readUploadTiming(
  msg: Message,
  acceptsPrior: boolean,
  period: { startMs: number; durationMs: number },
  nowMs: number,
): { timing: BeliefTiming; stated: boolean } {
  const prior = acceptsPrior ? readDateTime(msg.prior, 'prior', 'INVALID_HORIZON') : undefined;
  if (prior) return { timing: { priorMs: prior.toMillis() }, stated: true };
  const horizon = readHorizon(msg.horizon);
  if (!horizon) return { timing: { nowMs }, stated: false };
  const timing = horizon.rolling ? { horizonMs: horizon.ms } : { priorMs: period.startMs + period.durationMs - horizon.ms };
  return { timing, stated: true };
}

/** Addresses and the values they share, as one group of an upload. */
export interface UploadGroup {
  addresses: string[];
  values: (number | null)[];
}

/** Reads a list of addresses given as one text or a list of texts; undefined when it is neither. */
function addressList(value: unknown): string[] | undefined {
  const list = Array.isArray(value) ? value : [value];
  return list.length && list.every((a) => typeof a === 'string' && a.length > 0 && a.length <= 255) ? (list as string[]) : undefined;
}

/** Reads the values of a group: numbers, with null for a gap; REQUIRED_INFO_MISSING otherwise. */
function valueList(group: Message, where: string): (number | null)[] {
  const raw = group.values ?? group.value;
  if (raw === undefined) throw legacyError('REQUIRED_INFO_MISSING', `The message lacks values${where}.`);
  const parsed = sensorValues.safeParse(raw, { reportInput: true });
  if (parsed.success) return parsed.data;
  const problems = Object.entries(fieldMessages(parsed.error.issues)).map(
    ([k, v]) => `${k === '_schema' ? '' : `value ${k}: `}${String(v)}`,
  );
  throw legacyError('REQUIRED_INFO_MISSING', `The values${where} should be a list of numbers (${problems.join(' ')})`);
}

/**
 * Reads the addresses and values of an upload: at the top level (`connection` or `connections`
 * with `values`) or in `groups`, each group with its own addresses and values.
 * @param key the singular name of the addresses (`connection`, `market`, `sensor`).
 * @param missing the status name for absent or malformed addresses.
 * @returns the groups.
 */
export function readUploadGroups(msg: Message, key: string, missing: LegacyErrorName): UploadGroup[] {
  const keys = [key, `${key}s`];
  const found = keys.find((k) => msg[k] !== undefined);
  if (found || msg.groups === undefined) {
    const addresses = found ? addressList(msg[found]) : undefined;
    if (!addresses) throw legacyError(missing, `The message names no ${key}, or not as a text or a list of texts.`);
    return [{ addresses, values: valueList(msg, '') }];
  }
  if (!Array.isArray(msg.groups) || !msg.groups.length)
    throw legacyError(missing, 'The groups of the message should be a list of objects.');
  return msg.groups.map((group: unknown, i) => {
    const g = group && typeof group === 'object' ? (group as Message) : {};
    const k = keys.find((name) => g[name] !== undefined);
    const addresses = k ? addressList(g[k]) : undefined;
    if (!addresses) throw legacyError(missing, `Group ${i} names no ${key}, or not as a text or a list of texts.`);
    return { addresses, values: valueList(g, ` in group ${i}`) };
  });
}

/** Reads the addresses of a download (`connection` or `connections`); UNRECOGNIZED_CONNECTION_GROUP when absent. */
export function readConnections(msg: Message): string[] {
  const value = msg.connection ?? msg.connections;
  const addresses = value === undefined ? undefined : addressList(value);
  if (!addresses)
    throw legacyError('UNRECOGNIZED_CONNECTION_GROUP', 'The message names no connection, or not as a text or a list of texts.');
  return addresses;
}

/** The `:id` of a version 2.0 resource path; 400 INVALID_REQUEST when it is no integer. */
export function readPathId(ctx: AppContext, what: string): number {
  const raw = ctx.params.id;
  if (!/^(0|[1-9]\d{0,14})$/.test(raw)) throw legacyError('INVALID_REQUEST', `The ${what} id '${raw}' is not an integer.`);
  return Number(raw);
}
