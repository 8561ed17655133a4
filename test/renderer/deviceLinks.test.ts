import { describe, expect, it } from 'vitest';
import type { MqttLinkWire } from '../../server/src/contracts/mqttLinkAnswers.ts';
import { describeLastMessage, describeValue, deviceTopic, lastMessageCell } from '../../renderer/src/lib/deviceLinks.ts';

const NOW = Date.parse('2026-03-01T12:00:00Z');

const link = (over: Partial<MqttLinkWire> = {}, status: Partial<MqttLinkWire['status']> = {}): MqttLinkWire => ({
  id: 7,
  sensor_id: 3,
  name: 'meter',
  direction: 'in',
  topic: 'shellies/plug-1/power',
  value_path: null,
  time_path: null,
  unit: 'W',
  scale: 1,
  inverted: false,
  safe_setpoint: null,
  stale_after: null,
  username: 'link-7',
  ...over,
  status: { last_message_at: null, last_value: null, messages: 0, malformed: 0, late: 0, last_problem: null, ...status },
});

describe('device links in words', () => {
  it('says what the device last sent and when, in the sensor’s unit, without float noise', () => {
    expect(describeLastMessage(link(), 'kW', NOW)).toBe('no message yet');
    // 1200 W × 0.001 as the bridge computes it in floating point.
    const heard = link({}, { last_message_at: '2026-03-01T11:59:57Z', last_value: 1200 * 0.001, messages: 1 });
    expect(describeLastMessage(heard, 'kW', NOW)).toBe('last message 3 s ago, value 1.2 kW');
    const old = link({}, { last_message_at: '2026-03-01T11:45:00Z', last_value: 0.5 });
    expect(describeLastMessage(old, 'kW', NOW)).toBe('last message 15 min ago, value 0.5 kW');
  });

  it('fills the table’s last-message cell in the site’s zone; an out-link’s device sends nothing', () => {
    const heard = link({}, { last_message_at: '2026-03-01T11:59:57Z', last_value: 0.25 });
    expect(lastMessageCell(heard, 'kW', 'Europe/Amsterdam')).toBe('2026-03-01 12:59, 0.25 kW');
    expect(lastMessageCell(link(), 'kW', 'UTC')).toBe('none yet');
    expect(lastMessageCell(link({ direction: 'out' }), 'kW', 'UTC')).toBe('–');
  });

  it('names unreadable payloads with the last problem', () => {
    const bad = link({}, { last_message_at: '2026-03-01T11:59:50Z', messages: 2, malformed: 2, last_problem: 'p/q: no number at apower' });
    expect(describeLastMessage(bad, 'kW', NOW)).toBe(
      'last message 10 s ago, no readable value yet; 2 unreadable (p/q: no number at apower)',
    );
  });

  it('describes how an in-link reads and an out-link sends', () => {
    expect(describeValue(link())).toBe('plain number, W');
    expect(describeValue(link({ value_path: 'emeter.0.power', scale: 0.001, inverted: true }))).toBe(
      'JSON at emeter.0.power, W × 0.001, sign flipped',
    );
    const out = link({ direction: 'out', topic: 'flexsite/link-7', unit: 'kW', safe_setpoint: 0, stale_after: 'PT6H', inverted: true });
    expect(describeValue(out)).toBe('setpoint in kW, production positive; 0 kW when the plan ends or is older than PT6H');
    expect(deviceTopic(out)).toBe('flexsite/link-7/setpoint');
    expect(deviceTopic(link())).toBe('shellies/plug-1/power');
  });
});
