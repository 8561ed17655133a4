import { z } from 'zod';
import { awareDateTime, fixedDurationMs, intText, isoDuration } from './fields.ts';
import { parseEntityAddress } from '../domain/entityAddress.ts';
import { GET_TYPES, MAX_VALUES, POST_TYPES } from '../domain/sensorData.ts';
import { isValidUnit } from '../domain/units.ts';

/** A sensor's entity address (`ea1.2021-01.io.flexmeasures:fm1.42`), read as the sensor id (kept with the text for messages). */
export const entityAddress = z.string().transform((ea, ctx) => {
  const id = parseEntityAddress(ea);
  if (typeof id === 'number') return { id, address: ea };
  ctx.addIssue({ code: 'custom', message: id });
  return z.NEVER;
});

const special = new Set(['nan', '-nan', '+nan', 'inf', '-inf', '+inf', 'infinity', '-infinity', '+infinity']);
const numeric = /^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*$/;

/** One value as marshmallow's Float reads it: numbers and numeric text, never NaN or infinity. */
function readValue(v: unknown): number | string {
  if (typeof v === 'number') return Number.isFinite(v) ? v : 'Special numeric values (nan or infinity) are not permitted.';
  if (typeof v === 'string') {
    if (special.has(v.trim().toLowerCase())) return 'Special numeric values (nan or infinity) are not permitted.';
    // "1e999" is numeric text for an infinite number.
    if (numeric.test(v)) return Number.isFinite(Number(v)) ? Number(v) : 'Special numeric values (nan or infinity) are not permitted.';
  }
  return 'Not a valid number.';
}

/** `values`: a list of numbers and nulls, or a single number (a list of one). */
export const sensorValues = z
  .unknown()
  .transform((v, ctx): (number | null)[] => {
    if (v === undefined) {
      ctx.addIssue({ code: 'custom', message: 'Missing data for required field.' });
      return z.NEVER;
    }
    if (v === null) {
      ctx.addIssue({ code: 'custom', message: 'Field may not be null.' });
      return z.NEVER;
    }
    if (!Array.isArray(v)) {
      const single = readValue(v);
      if (typeof single === 'number') return [single];
      ctx.addIssue({ code: 'custom', message: single });
      return z.NEVER;
    }
    if (v.length < 1) ctx.addIssue({ code: 'custom', message: 'Shorter than minimum length 1.' });
    if (v.length > MAX_VALUES) ctx.addIssue({ code: 'custom', message: `Longer than maximum length ${MAX_VALUES}.` });
    if (v.length < 1 || v.length > MAX_VALUES) return z.NEVER;
    const out = new Array<number | null>(v.length);
    let bad = 0;
    for (let i = 0; i < v.length; i++) {
      if (v[i] === null) {
        out[i] = null;
        continue;
      }
      const value = readValue(v[i]);
      if (typeof value === 'number') out[i] = value;
      // Report a handful of bad items, not a million.
      else if (++bad <= 10) ctx.addIssue({ code: 'custom', message: value, path: [i] });
    }
    return bad ? z.NEVER : out;
  })
  .meta({ description: 'numbers (null for a gap), or one number', type: ['array', 'number'] });

/** A unit the unit registry knows; whether it fits the sensor is checked later. */
const unit = z
  .string()
  .max(80, { abort: true })
  .refine(isValidUnit, { error: (iss) => `Unit '${String(iss.input)}' cannot be handled.` });

/** A fixed duration that may be negative (a belief horizon after the fact). */
const signedDurationMs = isoDuration.transform((d, ctx) => {
  if (!d.nominal) return d.ms;
  ctx.addIssue({ code: 'custom', message: 'Only fixed durations are supported here.' });
  return z.NEVER;
});

const uploadFields = {
  values: sensorValues,
  start: awareDateTime,
  duration: fixedDurationMs,
  unit,
  horizon: signedDurationMs.optional(),
  prior: awareDateTime.optional(),
  type: z.enum(POST_TYPES).optional(),
};

/** Body of POST /sensors/data. */
export const postSensorData = z.strictObject({ sensor: entityAddress, ...uploadFields });

/** Body of POST /sensors/<id>/data; a `sensor` is allowed if it names the sensor of the path. */
export const postSensorDataById = z.strictObject({ sensor: entityAddress.optional(), ...uploadFields });

/** `source` of a download: one id, repeated ids, a comma-separated list, or (in a JSON body) a list. */
const sourceIds = z
  .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])
  .transform((v, ctx): number[] => {
    const parts = (Array.isArray(v) ? v : [v]).flatMap((s) =>
      String(s)
        .replace(/^\[|\]$/g, '')
        .split(','),
    );
    const ids = parts.map((s) => s.trim()).filter(Boolean);
    if (ids.length && ids.every((s) => /^\d{1,15}$/.test(s))) return ids.map(Number);
    ctx.addIssue({ code: 'custom', message: 'Not a valid integer.' });
    return z.NEVER;
  })
  .meta({ description: 'data source id, or several (repeated or comma-separated)', type: 'string' });

const positiveDurationMs = fixedDurationMs.refine((ms) => ms > 0, { error: 'Must be greater than 0.' });

const downloadFields = {
  start: awareDateTime,
  duration: fixedDurationMs,
  unit,
  resolution: positiveDurationMs.optional(),
  horizon: signedDurationMs.optional(),
  prior: awareDateTime.optional(),
  source: sourceIds.optional(),
  /** FlexMeasures 1.0 (also spelled with underscores, as 1.0 accepts): filters on the data's source. */
  'source-account': intText.optional(),
  source_account: intText.optional(),
  'source-type': z.string().min(1).max(80).optional(),
  source_type: z.string().min(1).max(80).optional(),
  type: z.enum(GET_TYPES).optional(),
};

/** Query of GET /sensors/data. Unknown parameters are ignored. */
export const getSensorData = z.object({ sensor: entityAddress, ...downloadFields });

/** Query of GET /sensors/<id>/data; a `sensor` given must name the path's sensor. */
export const getSensorDataById = z.object({ sensor: entityAddress.optional(), ...downloadFields });
