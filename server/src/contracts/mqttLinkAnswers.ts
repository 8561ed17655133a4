import { z } from 'zod';

/*
 * The MQTT link answers, apart from the request contracts so that the web UI reads them without
 * the unit library the requests' checks need.
 */

/** How many messages of a kind a link has seen. */
const count = z.number().int().nonnegative();

/** A link as the API shows it; the password only in the answer that created it. */
export const mqttLink = z.object({
  id: z.number(),
  sensor_id: z.number(),
  name: z.string(),
  direction: z.enum(['in', 'out']),
  topic: z.string().describe('In: the filter the device publishes on. Out: the base of the setpoint, plan and status topics.'),
  value_path: z.string().nullable(),
  time_path: z.string().nullable(),
  unit: z.string(),
  scale: z.number(),
  inverted: z.boolean(),
  safe_setpoint: z.number().nullable(),
  stale_after: z.string().nullable(),
  username: z.string(),
  password: z.string().optional().describe('Shown once, when the link is created; stored hashed.'),
  status: z.object({
    last_message_at: z.string().nullable(),
    last_value: z.number().nullable(),
    messages: count,
    malformed: count,
    late: count,
    last_problem: z.string().nullable(),
  }),
});

export const mqttLinkList = z.array(mqttLink);
export type MqttLinkWire = z.infer<typeof mqttLink>;

/** `GET /assets/<id>/mqtt-links`: whether and where devices reach a broker, and the links of the site's sensors. */
export const assetMqttLinks = z.object({
  broker: z.object({
    mode: z.enum(['off', 'embedded', 'external']).describe('off: MQTT is not switched on (FLEXSITE_MQTT, FLEXSITE_MQTT_URL).'),
    port: z.number().nullable().describe("The embedded broker's port, on this server's address."),
    url: z.string().nullable().describe("The site's own broker."),
  }),
  links: mqttLinkList,
});
