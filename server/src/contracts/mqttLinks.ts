import { z } from 'zod';
import { topicFilterProblem, valuePathProblem } from '../domain/mqtt.ts';
import { parseIsoDuration } from '../domain/time.ts';
import { isValidUnit } from '../domain/units.ts';
import { text } from './fields.ts';

const path = z
  .string()
  .trim()
  .superRefine((p, ctx) => {
    const problem = valuePathProblem(p);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const unit = z
  .string()
  .trim()
  .refine(isValidUnit, { error: (iss) => `Unit '${String(iss.input)}' cannot be handled.` });

/** The factor between the device's numbers and the unit; 0 would make every value 0 (stored or sent). */
const scale = (does: 'store' | 'send') =>
  z
    .number()
    .finite()
    .refine((s) => s !== 0, `A scale of 0 would ${does} only zeros.`)
    .default(1);

const positiveDuration = z
  .string()
  .max(32)
  .transform((t, ctx) => {
    const d = parseIsoDuration(t);
    if (typeof d === 'string' || d.nominal || d.ms <= 0) {
      ctx.addIssue({ code: 'custom', message: 'Not a positive ISO 8601 duration such as PT1H.' });
      return z.NEVER;
    }
    return d.ms;
  });

/**
 * `POST /sensors/<id>/mqtt-links`. In: the sensor's measurements arrive on `topic` (wildcards
 * allowed), the value at `value_path` of a JSON payload or the payload itself, in `unit` times
 * `scale`; `inverted` flips the sign (a meter counting production as positive). Out: the sensor's
 * plan is published under the link's own topics in `unit`, and `safe_setpoint` when the plan ends
 * or is older than `stale_after`.
 */
export const mqttLinkCreate = z.discriminatedUnion('direction', [
  z.strictObject({
    direction: z.literal('in'),
    name: text(80),
    topic: z.string().superRefine((t, ctx) => {
      const problem = topicFilterProblem(t);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
    value_path: path.nullable().default(null),
    time_path: path.nullable().default(null),
    unit,
    scale: scale('store'),
    inverted: z.boolean().default(false),
  }),
  z.strictObject({
    direction: z.literal('out'),
    name: text(80),
    unit,
    scale: scale('send'),
    inverted: z.boolean().default(false),
    safe_setpoint: z.number().finite().default(0),
    stale_after: positiveDuration.default(3_600_000),
  }),
]);

export type MqttLinkCreate = z.output<typeof mqttLinkCreate>;
