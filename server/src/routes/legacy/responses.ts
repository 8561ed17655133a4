import { rejected } from '../../errors.ts';

/**
 * The USEF status names of the message endpoints' 400 answers: those of the legacy endpoint
 * tables, plus the period, horizon and resolution names the message API always used for those
 * fields.
 */
export type LegacyErrorName =
  | 'INCOMPLETE_UDI_EVENT'
  | 'INVALID_DATETIME'
  | 'INVALID_DOMAIN'
  | 'INVALID_HORIZON'
  | 'INVALID_MESSAGE_TYPE'
  | 'INVALID_PERIOD'
  | 'INVALID_REQUEST'
  | 'INVALID_RESOLUTION'
  | 'INVALID_SOURCE'
  | 'INVALID_TIMEZONE'
  | 'INVALID_UNIT'
  | 'OUTDATED_UDI_EVENT'
  | 'PTUS_INCOMPLETE'
  | 'REQUIRED_INFO_MISSING'
  | 'UNKNOWN_SCHEDULE'
  | 'UNRECOGNIZED_ASSET'
  | 'UNRECOGNIZED_CONNECTION_GROUP'
  | 'UNRECOGNIZED_MARKET'
  | 'UNRECOGNIZED_SENSOR'
  | 'UNRECOGNIZED_UDI_EVENT';

/**
 * A 400 answer of the legacy versions: `{"result": "Rejected", "status": NAME, "message"}`.
 * @param name the USEF status name.
 * @param message what is wrong, for the person configuring the device.
 * @returns the error to throw.
 */
export const legacyError = (name: LegacyErrorName, message: string) => rejected(400, name, message);

/** The 405 answer under the legacy prefixes (instead of Werkzeug's). */
export const invalidMethod = () => rejected(405, 'INVALID_METHOD', 'This endpoint does not support the request method.');

/** The success envelope of a message endpoint, with the response type. */
export const processed = (type: string) => ({ type, status: 'PROCESSED', message: 'Request has been processed.' });

/** How a value looks in a message about it: quoted text, or its JSON. */
export const shown = (value: unknown): string =>
  value === undefined ? 'nothing' : typeof value === 'string' ? `'${value}'` : JSON.stringify(value);
