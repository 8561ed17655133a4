/**
 * Entity addresses of the legacy message API. Every address is `ea1.<YYYY-MM>.<authority>:<local>`;
 * the authority is not checked (as in v3.0). The local part comes in the old colon-separated
 * form and in the `scheme.id` forms:
 *
 * - connection: `<owner>:<sensor id>`, `fm0.<owner>:<sensor id>`, `fm1.<sensor id>`; a text
 *   that is no address at all is a connection name;
 * - market: `<name>`, `fm0.<name>`, `fm1.<sensor id>`;
 * - weather sensor: `<type>:<lat>:<lng>`, `fm0.<type>:<lat>:<lng>`, `fm1.<sensor id>`;
 * - UDI event: `<owner>:<sensor id>:<event id>:<event type>` (owner optional, `fm0.` allowed),
 *   `fm1.<sensor id>:<event id>:<event type>`.
 *
 * The owner part names the account in Flexsite; the sensor id alone identifies the device, so it
 * is read but not compared.
 */

export type ByIdOrName = { sensorId: number } | { name: string };
export type WeatherAddress = { sensorId: number } | { type: string; latitude: number; longitude: number };
export interface EventAddress {
  sensorId: number;
  eventId: number;
  eventType: string;
}

const authority = /^ea1\.[0-9]{4}-(0[1-9]|1[0-2])\.[^:]+:(.+)$/;
const number = '-?\\d+(?:\\.\\d+)?';
const fm1 = /^fm1\.(\d+)$/;

/** The local part of an address, or why the address is no type-1 address. */
function localPart(ea: string, kind: string): string | { error: string } {
  if (!ea.startsWith('ea1.')) return { error: `The ${kind} address ${ea} does not start with 'ea1.'.` };
  const m = authority.exec(ea);
  if (!m) return { error: `The ${kind} address ${ea} needs a date code (YYYY-MM) and a naming authority before the first colon.` };
  return m[2];
}

const id = (text: string) => (Number.isSafeInteger(Number(text)) ? Number(text) : undefined);
const malformed = (ea: string, kind: string, forms: string) => ({ error: `Could not read the ${kind} address ${ea}; expected ${forms}.` });

/**
 * Reads a connection: an entity address naming a sensor, or a connection name.
 * @returns the sensor id or name, or an error message (INVALID_DOMAIN).
 */
export function parseConnection(text: string): ByIdOrName | { error: string } {
  if (!text.startsWith('ea1')) return { name: text };
  const local = localPart(text, 'connection');
  if (typeof local !== 'string') return local;
  const m = fm1.exec(local) ?? /^(?:fm0\.)?(?:\d+:)?(\d+)$/.exec(local);
  const sensorId = m ? id(m[1]) : undefined;
  return sensorId === undefined
    ? malformed(text, 'connection', "'<owner>:<sensor id>' or 'fm1.<sensor id>' after the colon")
    : { sensorId };
}

/**
 * Reads a market address.
 * @returns the price sensor id or market name, or an error message (INVALID_DOMAIN).
 */
export function parseMarket(text: string): ByIdOrName | { error: string } {
  const local = localPart(text, 'market');
  if (typeof local !== 'string') return local;
  const byId = fm1.exec(local);
  if (byId && id(byId[1]) !== undefined) return { sensorId: Number(byId[1]) };
  const byName = /^(?:fm0\.)?([A-Za-z]\w*)$/.exec(local);
  return byName ? { name: byName[1] } : malformed(text, 'market', "'<market name>' or 'fm1.<sensor id>' after the colon");
}

/**
 * Reads a weather sensor address.
 * @returns the sensor id, or its type and location; or an error message (INVALID_DOMAIN).
 */
export function parseWeatherSensor(text: string): WeatherAddress | { error: string } {
  const local = localPart(text, 'weather sensor');
  if (typeof local !== 'string') return local;
  const byId = fm1.exec(local);
  if (byId && id(byId[1]) !== undefined) return { sensorId: Number(byId[1]) };
  const m = new RegExp(`^(?:fm0\\.)?([A-Za-z]\\w*):(${number}):(${number})$`).exec(local);
  return m
    ? { type: m[1], latitude: Number(m[2]), longitude: Number(m[3]) }
    : malformed(text, 'weather sensor', "'<sensor type>:<latitude>:<longitude>' or 'fm1.<sensor id>' after the colon");
}

/**
 * Reads a UDI event address.
 * @returns the device's sensor id, the event id and type, or an error message (INVALID_DOMAIN).
 */
export function parseEvent(text: string): EventAddress | { error: string } {
  const local = localPart(text, 'event');
  if (typeof local !== 'string') return local;
  const m = /^fm1\.(\d+):(\d+):([^:]+)$/.exec(local) ?? /^(?:fm0\.)?(?:\d+:)?(\d+):(\d+):([^:]+)$/.exec(local);
  const sensorId = m ? id(m[1]) : undefined;
  const eventId = m ? id(m[2]) : undefined;
  if (!m || sensorId === undefined || eventId === undefined) {
    return malformed(
      text,
      'event',
      "'<owner>:<sensor id>:<event id>:<event type>' or 'fm1.<sensor id>:<event id>:<event type>' after the colon",
    );
  }
  return { sensorId, eventId, eventType: m[3] };
}
