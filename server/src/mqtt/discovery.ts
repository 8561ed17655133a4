import { isEnergyUnit, isPowerUnit } from '../domain/units.ts';
import type { MqttLink } from '../store/mqttLinks.ts';

/**
 * Home Assistant's MQTT discovery: a retained config per entity under
 * `homeassistant/sensor/<node>/<object>/config` makes HA show it, grouped under its device; an
 * empty retained payload on the same topic removes it. Flexsite shows two kinds of HA device: a
 * site (the top asset above a link's sensor) with the money of its plans today, and below it a
 * device per linked sensor with its measurement, or its setpoint, plan status, SoC plan, next
 * target and scheduling job status.
 */

/** Where Flexsite publishes a link's own state: `flexsite/<username>`. */
export const linkBase = (link: MqttLink) => `flexsite/${link.username}`;

/** The topic an in-link's latest reading is republished on, in the sensor's unit, for HA. */
export const valueTopic = (link: MqttLink) => `${linkBase(link)}/value`;

/** Where Flexsite publishes a site's own state. */
export const siteBase = (siteId: number) => `flexsite/site-${siteId}`;

/** The state an out-link's entities show besides setpoint and status, by topic name below `linkBase`. */
export const PLAN_STATES = ['next_soc', 'next_target', 'next_target_time', 'job_status'] as const;
/** The money of a site's plans today, by topic name below `siteBase`. */
export const MONEY_STATES = ['planned_cost_today', 'planned_savings_today', 'realised_savings_today'] as const;

/** The unit the SoC entities are given in: what HA's energy_storage class and a home battery's app use. */
export const SOC_UNIT = 'kWh';

/** The site a link's sensor belongs to: the top asset above it. */
export interface Site {
  id: number;
  name: string;
}

/** One entity's discovery message. */
export interface DiscoveryConfig {
  topic: string;
  config: Record<string, unknown>;
}

/** How HA is to read an entity's state: its unit, device class and state class (all optional). */
interface Kind {
  unit?: string;
  deviceClass?: string;
  stateClass?: string;
}

/** A reading in `unit`: power and energy get HA's device classes; HA wants energy totals as `total`. */
function measured(unit: string): Kind {
  if (isPowerUnit(unit)) return { unit, deviceClass: 'power', stateClass: 'measurement' };
  if (isEnergyUnit(unit)) return { unit, deviceClass: 'energy', stateClass: 'total' };
  return { unit, stateClass: 'measurement' };
}

const STORED: Kind = { unit: SOC_UNIT, deviceClass: 'energy_storage', stateClass: 'measurement' };
const TIME: Kind = { deviceClass: 'timestamp' };
const TEXT: Kind = {};

/** Makes the entities of one HA device (`node`). */
function entities(node: string, device: Record<string, unknown>) {
  return (object: string, name: string, stateTopic: string, kind: Kind): DiscoveryConfig => ({
    topic: `homeassistant/sensor/${node}/${object}/config`,
    config: {
      name,
      unique_id: `${node}_${object}`,
      object_id: `${node}_${object}`,
      state_topic: stateTopic,
      ...(kind.unit !== undefined && { unit_of_measurement: kind.unit }),
      ...(kind.deviceClass !== undefined && { device_class: kind.deviceClass }),
      ...(kind.stateClass !== undefined && { state_class: kind.stateClass }),
      device,
    },
  });
}

const siteDevice = (site: Site) => `flexsite_site_${site.id}`;

/**
 * The entities of a link, under a device named after the sensor and grouped under its site: an
 * in-link's latest measurement; an out-link's planned setpoint, plan status, SoC at the end of the
 * current step, next SoC target (value and time) and the status of the sensor's newest scheduling job.
 * @param sensor the link's sensor (its name names the device; an in-link's value is in its unit).
 */
export function discoveryConfigs(link: MqttLink, sensor: { id: number; name: string; unit: string }, site: Site): DiscoveryConfig[] {
  const node = `flexsite_link_${link.id}`;
  const device = {
    identifiers: [`flexsite_sensor_${sensor.id}`],
    name: sensor.name,
    manufacturer: 'Flexsite',
    model: 'MQTT link',
    via_device: siteDevice(site),
  };
  const entity = entities(node, device);
  const base = linkBase(link);
  if (link.direction === 'in') return [entity('measurement', `${link.name} measurement`, valueTopic(link), measured(sensor.unit))];
  return [
    entity('setpoint', `${link.name} planned setpoint`, `${base}/setpoint`, measured(link.unit)),
    entity('status', `${link.name} plan status`, `${base}/status`, TEXT),
    entity('next_soc', `${link.name} planned SoC at the step's end`, `${base}/next_soc`, STORED),
    entity('next_target', `${link.name} next SoC target`, `${base}/next_target`, STORED),
    entity('next_target_time', `${link.name} next SoC target time`, `${base}/next_target_time`, TIME),
    entity('job_status', `${link.name} scheduling job`, `${base}/job_status`, TEXT),
  ];
}

/**
 * A site's entities: what its plans cost today, what they save against doing nothing, and what the
 * measured steps saved, in the plans' currency (HA's monetary class wants a `total`).
 * @param currency null when unknown (fixed prices) or mixed: the amounts are then plain numbers.
 */
export function siteConfigs(site: Site, currency: string | null): DiscoveryConfig[] {
  const node = siteDevice(site);
  const entity = entities(node, { identifiers: [node], name: site.name, manufacturer: 'Flexsite', model: 'Site' });
  const money: Kind = currency ? { unit: currency, deviceClass: 'monetary', stateClass: 'total' } : { stateClass: 'total' };
  const base = siteBase(site.id);
  return [
    entity('planned_cost_today', `${site.name} planned cost today`, `${base}/planned_cost_today`, money),
    entity('planned_savings_today', `${site.name} planned savings today`, `${base}/planned_savings_today`, money),
    entity('realised_savings_today', `${site.name} realised savings today`, `${base}/realised_savings_today`, money),
  ];
}
