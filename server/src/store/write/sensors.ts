import type { Knex } from 'knex';
import type { Writer } from '../auditLog.ts';
import { getSensor, type Sensor, type SensorInContext } from '../sensors.ts';
import { recordAudit } from './auditLog.ts';
import { defined } from '../defined.ts';
import { changeEvents } from '../auditEvents.ts';

/** Where a sensor's entries go: the log of its asset. */
const onAsset = (sensor: SensorInContext) => ({ assetId: sensor.generic_asset_id, accountId: sensor.account_id });

/**
 * Creates a sensor and records it on its asset's log.
 * @returns the new sensor.
 */
export async function createSensor(trx: Knex.Transaction, by: Writer, props: Omit<Sensor, 'id'>): Promise<Sensor> {
  const [{ id }] = await trx('sensor')
    .insert({ ...props, attributes: JSON.stringify(props.attributes) })
    .returning<{ id: number }[]>('id');
  const sensor = (await getSensor(trx, id))!;
  await recordAudit(trx, by, onAsset(sensor), `Created sensor '${sensor.name}': ${id}`);
  return sensor;
}

/** Updates the given fields of a sensor, recording one entry per changed field and attribute. */
export async function updateSensor(
  trx: Knex.Transaction,
  by: Writer,
  before: SensorInContext,
  changes: Partial<Pick<Sensor, 'name' | 'unit' | 'timezone' | 'event_resolution_ms' | 'attributes'>>,
): Promise<void> {
  const row: Record<string, unknown> = defined(changes);
  if (changes.attributes) row.attributes = JSON.stringify(changes.attributes);
  if (Object.keys(row).length) await trx('sensor').where({ id: before.id }).update(row);
  for (const event of changeEvents(before, changes)) {
    await recordAudit(trx, by, onAsset(before), `Updated sensor '${before.name}': ${before.id}, ${event}`);
  }
}

/** Deletes a sensor and records it; its data cascades. */
export async function deleteSensor(trx: Knex.Transaction, by: Writer, sensor: SensorInContext): Promise<boolean> {
  const deleted = (await trx('sensor').where({ id: sensor.id }).delete()) > 0;
  if (deleted) await recordAudit(trx, by, onAsset(sensor), `Deleted sensor '${sensor.name}': ${sensor.id}`);
  return deleted;
}
