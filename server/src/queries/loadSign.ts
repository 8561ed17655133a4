import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { measuredValues } from '../store/lastMeasurements.ts';
import type { Sensor } from '../store/sensors.ts';

const POWER_UNIT = /^[kMG]?W$/;

/** How a power sensor's stored values are signed; null for sensors that are not power. */
export function signConvention(sensor: Pick<Sensor, 'unit' | 'attributes'>): 'consumption positive' | 'production positive' | null {
  if (!POWER_UNIT.test(sensor.unit)) return null;
  return sensor.attributes.consumption_is_positive === true ? 'consumption positive' : 'production positive';
}

/**
 * The sign trap's symptom: a power sensor that produced at every measured interval of the last
 * complete day in its zone (read consumption positive, every value below zero, and no interval of
 * the day unmeasured). A house load uploaded with the other sign convention looks like this; a
 * PV inverter never does (it is zero at night), nor does a grid meter or a battery over a day.
 * @returns the day and how many values it has, or null when the sensor does not look like that.
 */
export async function negativeAllDay(
  db: Knex,
  sensor: Pick<Sensor, 'id' | 'unit' | 'attributes' | 'timezone' | 'event_resolution_ms'>,
  nowMs: number,
): Promise<{ day: string; values: number } | null> {
  const sign = signConvention(sensor);
  const res = sensor.event_resolution_ms;
  if (!sign || res <= 0) return null;
  const end = DateTime.fromMillis(nowMs, { zone: sensor.timezone }).startOf('day');
  const start = end.minus({ days: 1 });
  const values = await measuredValues(db, sensor.id, start.toMillis(), end.toMillis());
  const toConsumption = sign === 'consumption positive' ? 1 : -1;
  const whole = values.length === Math.round((end.toMillis() - start.toMillis()) / res);
  return whole && values.every((v) => toConsumption * v < 0) ? { day: start.toISODate()!, values: values.length } : null;
}
