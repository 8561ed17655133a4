import type { MqttLinkWire } from '../../../server/src/contracts/mqttLinkAnswers.ts';
import { formatAge, formatTime } from './time.ts';

/** A device's number as people read it: no float noise (`1.2`, not `1.2000000000000002`). */
export const formatReading = (value: number): string => String(Number(value.toPrecision(6)));

/** Seconds from the device's last message to `nowMs`, or null before its first. */
export function messageAge(link: MqttLinkWire, nowMs: number): number | null {
  const at = link.status.last_message_at;
  return at === null ? null : Math.max(0, Math.round((nowMs - Date.parse(at)) / 1000));
}

/**
 * What a link's test says: when its device last sent and what it read, in the sensor's unit
 * (the link converts every reading to it), e.g. "last message 3 s ago, value 1.2 kW".
 */
export function describeLastMessage(link: MqttLinkWire, sensorUnit: string, nowMs: number): string {
  const age = messageAge(link, nowMs);
  if (age === null) return 'no message yet';
  const { last_value: value, malformed } = link.status;
  const read = value === null ? 'no readable value yet' : `value ${formatReading(value)} ${sensorUnit}`;
  const unreadable = malformed ? `; ${malformed} unreadable (${link.status.last_problem ?? 'no number where the link says'})` : '';
  return `last message ${formatAge(age)} ago, ${read}${unreadable}`;
}

/** How a link reads or sends its values: payload, unit, scale and sign, for the links table. */
export function describeValue(link: MqttLinkWire): string {
  const scaled = `${link.unit}${link.scale === 1 ? '' : ` × ${link.scale}`}`;
  if (link.direction === 'out') {
    const sign = link.inverted ? 'production positive' : 'consumption positive';
    return `setpoint in ${scaled}, ${sign}; ${link.safe_setpoint ?? 0} ${link.unit} when the plan ends or is older than ${link.stale_after ?? '–'}`;
  }
  const where = link.value_path ? `JSON at ${link.value_path}` : 'plain number';
  return `${where}, ${scaled}${link.inverted ? ', sign flipped' : ''}`;
}

/** The topic a link's device publishes on (in) or reads its setpoint from (out). */
export const deviceTopic = (link: MqttLinkWire): string => (link.direction === 'out' ? `${link.topic}/setpoint` : link.topic);

/** The links table's last message: when and what, "none yet", or "–" for an out-link, whose device only reads. */
export function lastMessageCell(link: MqttLinkWire, sensorUnit: string, zone: string): string {
  const { last_message_at: at, last_value: value } = link.status;
  if (link.direction === 'out') return '–';
  if (at === null) return 'none yet';
  return `${formatTime(at, zone)}${value === null ? '' : `, ${formatReading(value)} ${sensorUnit}`}`;
}
