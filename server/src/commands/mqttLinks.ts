import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { MqttLinkCreate } from '../contracts/mqttLinks.ts';
import { filtersOverlap, hashDevicePassword } from '../domain/mqtt.ts';
import { conversion } from '../domain/units.ts';
import { fieldError } from '../errors.ts';
import { auditActor, rightsOf, type Principal } from '../policies/principal.ts';
import { authorizeReferences } from '../policies/references.ts';
import * as store from '../store/mqttLinks.ts';
import * as write from '../store/write/mqttLinks.ts';
import type { SensorInContext } from '../store/sensors.ts';
import type { Uses } from './context.ts';

/**
 * Adding and removing a device link, the one way the API does it. The writer must be allowed to
 * write the sensor; an in-link's topic may not overlap a topic another account's link listens on
 * (a device of one account would feed the other's sensor), nor the topics Flexsite publishes.
 * No HTTP context: errors are the API's (422 field messages, 403). Each writes in a transaction of
 * its own (the caller tells the broker bridge once it is stored), whose store write records the
 * audit entry.
 */

/** Topics Flexsite publishes itself: setpoints and Home Assistant's discovery configs. */
const RESERVED_TOPICS = ['flexsite/#', 'homeassistant/#'];

/** A link is added and removed by whoever may write its sensor. */
async function authorizeSensorWrite(db: Knex, principal: Principal, sensor: SensorInContext): Promise<void> {
  await authorizeReferences(db, principal, [{ kind: 'sensor', id: sensor.id, use: 'write', location: 'path', field: 'id' }], [sensor]);
}

async function checkTopic(db: Knex, sensor: SensorInContext, topic: string): Promise<void> {
  const reserved = RESERVED_TOPICS.find((r) => filtersOverlap(topic, r));
  if (reserved) throw fieldError('json', 'topic', `This topic overlaps ${reserved}, which Flexsite publishes itself.`);
  const foreign = (await store.foreignInLinks(db, sensor.account_id)).find((l) => filtersOverlap(topic, l.topic));
  if (foreign) throw fieldError('json', 'topic', "This topic overlaps a topic another account's device publishes on.");
}

/**
 * Adds a link to a sensor, made by the principal's user, whose current rights its readings are
 * stored with.
 * @returns the link and its password, which is not stored and cannot be shown again.
 */
export async function createMqttLink(
  context: Uses<'clock'>,
  principal: Principal,
  input: { sensor: SensorInContext; body: MqttLinkCreate },
): Promise<{ link: store.MqttLink; password: string }> {
  const { db } = context;
  const { sensor, body } = input;
  await authorizeSensorWrite(db, principal, sensor);
  if (!conversion(body.unit, sensor.unit, sensor.event_resolution_ms))
    throw fieldError('json', 'unit', `Unit '${body.unit}' cannot be converted to the sensor's unit '${sensor.unit}'.`);
  const topic = body.direction === 'in' ? body.topic : '';
  if (body.direction === 'in') await checkTopic(db, sensor, topic);
  const password = randomBytes(32).toString('base64url');
  const link = await db.transaction((trx) =>
    write.createMqttLink(trx, auditActor(principal), {
      sensor,
      link: {
        sensorId: sensor.id,
        ownerId: rightsOf(principal)?.id ?? null,
        name: body.name,
        direction: body.direction,
        topic,
        valuePath: body.direction === 'in' ? body.value_path : null,
        timePath: body.direction === 'in' ? body.time_path : null,
        unit: body.unit,
        scale: body.scale,
        inverted: body.inverted,
        safeSetpoint: body.direction === 'out' ? body.safe_setpoint : null,
        staleAfterMs: body.direction === 'out' ? body.stale_after : null,
        passwordHash: hashDevicePassword(password),
        createdAt: context.clock.now(),
      },
    }),
  );
  return { link, password };
}

/** Removes a link (whoever may write its sensor); its buffered readings and setpoint record go with it. */
export async function deleteMqttLink(
  context: Uses,
  principal: Principal,
  input: { link: store.MqttLink; sensor: SensorInContext },
): Promise<void> {
  await authorizeSensorWrite(context.db, principal, input.sensor);
  await context.db.transaction((trx) => write.deleteMqttLink(trx, auditActor(principal), input));
}
