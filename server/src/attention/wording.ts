import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { failureOf } from '../jobs/jobTable.ts';
import { sensorNamings } from '../store/sensorNames.ts';

/**
 * How notifications say things to the people who read them (on screen and in mails): sensors by
 * their device and name, times in the site's zone, failures without exception names.
 */

/** "sensor 7", "sensor 7 (day-ahead prices)", "sensor 7's" as job messages write them. */
const SENSOR_MENTION = /\bsensor (\d+)(?: \([^)]*\))?/gi;

/** @returns the text with each sensor it mentions by id named as people name it ("Home battery power"). */
export async function nameSensors(db: Knex, text: string): Promise<string> {
  const ids = [...text.matchAll(SENSOR_MENTION)].map((m) => Number(m[1]));
  const namings = await sensorNamings(db, ids);
  return text.replace(SENSOR_MENTION, (mention, id: string) => namings.get(Number(id))?.name ?? mention);
}

/** @returns the sensor as people name it, or "a deleted sensor" when it is gone. */
export async function sensorName(db: Knex, sensorId: number | null): Promise<string> {
  if (sensorId === null) return 'a device';
  return (await sensorNamings(db, [sensorId])).get(sensorId)?.name ?? `a deleted sensor`;
}

/** A job's failure in its own words: the message without the exception's name ("UnknownPricesException: "). */
export function failureReason(err: unknown): string {
  const said = err instanceof Error ? failureOf(err).error : String(err);
  return said.replace(/^[A-Za-z]+: /, '');
}

/** @returns an instant as the site reads it, e.g. `2026-06-01 03:00 Europe/Amsterdam`. */
export const siteTime = (ms: number, zone: string) => `${DateTime.fromMillis(ms, { zone }).toFormat('yyyy-LL-dd HH:mm')} ${zone}`;

/** @returns a length of time in minutes or hours, e.g. `30 min`, `2 h`. */
export const lengthOf = (ms: number) => (ms % 3600_000 === 0 ? `${ms / 3600_000} h` : `${Math.round(ms / 60_000)} min`);
