import { DateTime } from 'luxon';

/**
 * The naming-authority part of entity addresses issued by this host, `ea1.<YYYY-MM>.<reversed host>`.
 * The date code is the one configured for the host; for localhost and for hosts nobody
 * configured (a LAN address of the appliance) it is the month after the current one, so that
 * every sensor has an address devices can use.
 * @param host the request's Host header (a port is ignored).
 * @param hostsAndAuthStart configured date codes per host.
 * @param now the current instant.
 * @returns the scheme, date code and reversed host.
 */
export function entityAddressAuthority(host: string, hostsAndAuthStart: Record<string, string>, now = DateTime.utc()): string {
  let name = host
    .replace(/^\[?([^\]]*?)\]?(:\d+)?$/, '$1')
    .replace(/^[w.]+/, '')
    .toLowerCase();
  if (name.startsWith('127.') || name === '::1' || name === '') name = 'localhost';
  const reversed = name.includes(':') || /^[\d.]+$/.test(name) ? name : name.split('.').reverse().join('.');
  const configured = Object.entries(hostsAndAuthStart).find(([h]) => name === h || name.endsWith(`.${h}`));
  const dateCode = configured?.[1] ?? now.startOf('month').plus({ months: 1 }).toFormat('yyyy-MM');
  return `ea1.${dateCode}.${reversed.replace(/:/g, '-')}`;
}

/**
 * Builds a sensor's entity address `ea1.<YYYY-MM>.<reversed host>:fm1.<id>`.
 * @param host the request's Host header (a port is ignored).
 * @param sensorId the sensor id.
 * @param hostsAndAuthStart configured date codes per host.
 * @param now the current instant.
 * @returns the entity address.
 */
export function buildEntityAddress(
  host: string,
  sensorId: number,
  hostsAndAuthStart: Record<string, string>,
  now = DateTime.utc(),
): string {
  return `${entityAddressAuthority(host, hostsAndAuthStart, now)}:fm1.${sensorId}`;
}

/**
 * Reads the sensor id from a type-1 entity address; the authority is not checked.
 * @param ea the entity address.
 * @returns the sensor id, or the reason the address is malformed.
 */
export function parseEntityAddress(ea: string): number | string {
  if (!ea.startsWith('ea1')) return `A valid type 1 USEF entity address starts with 'ea1', please review ${ea}`;
  if (!/^ea1\.([0-9]{4})-(0[1-9]|1[012])/.test(ea)) {
    return "After 'ea1.', a date specification of the format ([0-9]{4})-(0[1-9]|1[012]) is expected.";
  }
  const colon = ea.indexOf(':');
  if (colon < 0 || !ea.slice(colon + 1).startsWith('fm1.')) {
    const prefix = colon < 0 ? ea : ea.slice(0, colon);
    return `A valid type 1 FlexMeasures entity address starts with '${prefix}:fm1.', please review ${ea}`;
  }
  const match = /^ea1\.[0-9]{4}-(0[1-9]|1[012])\.[^:]+:fm1\.(\d+)$/.exec(ea);
  if (!match) return `Could not parse sensor ${ea}.`;
  const id = Number(match[2]);
  return Number.isSafeInteger(id) ? id : `Could not parse sensor ${ea}.`;
}
