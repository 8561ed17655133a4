import { isEnergyUnit, isPowerUnit } from '../domain/units.ts';
import type { MqttLink } from '../store/mqttLinks.ts';

/**
 * Home Assistant's MQTT discovery: a retained config per entity under
 * `homeassistant/sensor/<node>/<object>/config` makes HA show it, grouped under its device; an
 * empty retained payload on the same topic removes it.
 */

/** Where Flexsite publishes a link's own state: `flexsite/<username>`. */
export const linkBase = (link: MqttLink) => `flexsite/${link.username}`;

/** The topic an in-link's latest reading is republished on, in the sensor's unit, for HA. */
export const valueTopic = (link: MqttLink) => `${linkBase(link)}/value`;

function deviceClass(unit: string): string | undefined {
  if (isPowerUnit(unit)) return 'power';
  if (isEnergyUnit(unit)) return 'energy';
  return undefined;
}

/** One entity's discovery message. */
export interface DiscoveryConfig {
  topic: string;
  config: Record<string, unknown>;
}

/**
 * The entities of a link: an in-link's latest measurement; an out-link's planned setpoint and its
 * plan status. Each is grouped under a device named after the sensor.
 * @param sensor the link's sensor (its name names the device; an in-link's value is in its unit).
 */
export function discoveryConfigs(link: MqttLink, sensor: { id: number; name: string; unit: string }): DiscoveryConfig[] {
  const node = `flexsite_link_${link.id}`;
  const device = { identifiers: [`flexsite_sensor_${sensor.id}`], name: sensor.name, manufacturer: 'Flexsite', model: 'MQTT link' };
  const entity = (object: string, name: string, stateTopic: string, unit?: string) => ({
    topic: `homeassistant/sensor/${node}/${object}/config`,
    config: {
      name,
      unique_id: `${node}_${object}`,
      object_id: `${node}_${object}`,
      state_topic: stateTopic,
      ...(unit !== undefined && { unit_of_measurement: unit }),
      // HA wants energy totals as `total`; a power or other reading is a measurement.
      ...(unit !== undefined && { state_class: deviceClass(unit) === 'energy' ? 'total' : 'measurement' }),
      ...(unit !== undefined && deviceClass(unit) && { device_class: deviceClass(unit) }),
      device,
    },
  });
  if (link.direction === 'in') return [entity('measurement', `${link.name} measurement`, valueTopic(link), sensor.unit)];
  return [
    entity('setpoint', `${link.name} planned setpoint`, `${linkBase(link)}/setpoint`, link.unit),
    entity('status', `${link.name} plan status`, `${linkBase(link)}/status`),
  ];
}
