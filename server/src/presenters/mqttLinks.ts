import type { MqttLinkWire } from '../contracts/mqttLinkAnswers.ts';
import { formatResolution, isoOrNull } from '../domain/time.ts';
import { settingColumns, type MqttLink } from '../store/mqttLinks.ts';

/**
 * A device link as the API shows it: its settings, its username, and what its device last sent.
 * @param password the link's password, shown once: in the answer that made it.
 */
export function presentLink(link: MqttLink, password?: string): MqttLinkWire {
  return {
    id: link.id,
    ...settingColumns(link),
    stale_after: link.staleAfterMs === null ? null : formatResolution(link.staleAfterMs),
    username: link.username,
    ...(password !== undefined && { password }),
    status: {
      last_message_at: isoOrNull(link.lastMessageAt),
      last_value: link.lastValue,
      messages: link.messageCount,
      malformed: link.malformedCount,
      late: link.lateCount,
      last_problem: link.lastProblem,
    },
  };
}
