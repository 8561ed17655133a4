import { z } from 'zod';
import { awareDateTime, id, isoDuration } from './fields.ts';

/**
 * Flex-model and flex-context of the trigger body: the 0.18 fields plus the later input forms
 * current clients send (quantity strings such as "25 kW" or "90%", `{"sensor": id}` references,
 * SoC constraints over a start/end window). Values are parsed here; unit conversion and sensor
 * lookups happen in `scheduling/flexConfig.ts` because they need the sensor and the store.
 */

/** A quantity: a bare number (in a unit implied by the field) or a string with its unit. */
export const quantity = z.union([z.number(), z.string().max(100)]);

/** A reference to a sensor whose data supplies a value per step. */
export const sensorRef = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    if (!('sensor' in value)) ctx.addIssue({ code: 'custom', message: 'Dictionary provided but `sensor` key not found.' });
  })
  .pipe(
    z.strictObject({
      sensor: id,
      /** FlexMeasures 1.0: read only beliefs of these source types (e.g. ["forecaster"]). */
      'source-types': z.array(z.string().min(1).max(40)).min(1).optional(),
      /** FlexMeasures 1.0: read no beliefs of these source types (e.g. ["scheduler"]). */
      'exclude-source-types': z.array(z.string().min(1).max(40)).min(1).optional(),
      /** FlexMeasures 1.0: the value of steps for which the sensor has no data. */
      default: quantity.optional(),
    }),
  );

/**
 * One segment of a time series (FlexMeasures 1.0): a value over start and end, or start and
 * duration, or duration and end; checked as the reference checks its timed events.
 */
export const timedSegment = z
  .strictObject({ value: quantity, start: awareDateTime.optional(), end: awareDateTime.optional(), duration: isoDuration.optional() })
  // Timing problems sit under the segment's `_schema`, as marshmallow reports a schema validator.
  .superRefine((s, ctx) => {
    const given = [s.start, s.end, s.duration].filter((v) => v !== undefined).length;
    if (s.duration !== undefined && given !== 2) {
      ctx.addIssue({ code: 'custom', path: ['_schema'], message: "If using the 'duration' field, either 'start' or 'end' is expected." });
    } else if (given < 2) {
      ctx.addIssue({
        code: 'custom',
        path: ['_schema'],
        message:
          "Missing field(s) to describe timing: use the 'datetime' field, or a combination of 2 fields of 'start', 'end' and 'duration'.",
      });
    } else if (s.duration ? s.duration.ms <= 0 : s.start! >= s.end!) {
      // A reversed or empty segment covers no step: a mistake, stored or sent.
      ctx.addIssue({ code: 'custom', path: ['_schema'], message: 'A time segment must start before it ends.' });
    }
  });
export type TimedSegment = z.output<typeof timedSegment>;

/**
 * A variable quantity (FlexMeasures 1.0): a fixed quantity, a sensor reference, or a time series
 * of segments, as the capacity, efficiency, price and breach-price fields accept.
 */
export const variableQuantity = z.union([sensorRef, quantity, z.array(timedSegment).max(10_000)]);
export type VariableQuantity = z.output<typeof variableQuantity>;

/** A SoC constraint at an instant, or over a window given by start and end or start and duration. */
export const socConstraint = z.union([
  z.strictObject({ value: quantity, datetime: awareDateTime }),
  z.strictObject({ value: quantity, start: awareDateTime, end: awareDateTime }),
  z.strictObject({ value: quantity, start: awareDateTime, duration: isoDuration }),
]);

/** A list, or (FlexMeasures 1.0) a sensor whose beliefs are the constraints, each over its event. */
const socConstraints = z.union([z.array(socConstraint), sensorRef]);

/** Every field may be left out (so in the flex-context): the scheduler's defaults apply. */
export const storageFlexModel = z
  .strictObject({
    'soc-at-start': quantity,
    /**
     * Flexsite: the state of charge an EV is assumed to arrive with, planned from (and said in the
     * job's warnings) when its state-of-charge sensor has no recent measurement. EV chargers only.
     */
    'soc-at-arrival': quantity,
    'soc-unit': z.enum(['kWh', 'MWh']),
    'soc-min': quantity,
    'soc-max': quantity,
    'soc-targets': socConstraints,
    'soc-minima': socConstraints,
    'soc-maxima': socConstraints,
    'roundtrip-efficiency': quantity,
    'storage-efficiency': variableQuantity,
    'charging-efficiency': variableQuantity,
    'discharging-efficiency': variableQuantity,
    'prefer-charging-sooner': z.boolean(),
    /** FlexMeasures 1.0: the tie-breaker fades over the schedule (default true in the 1.0 dialect). */
    'prefer-curtailing-later': z.boolean(),
    'power-capacity': variableQuantity,
    'consumption-capacity': variableQuantity,
    'production-capacity': variableQuantity,
    'soc-gain': z.array(variableQuantity),
    'soc-usage': z.array(variableQuantity),
    /**
     * Output sensor for the scheduled state of charge; also where an omitted soc-at-start is read.
     * 1.0 also takes a time series here, an input for soc-at-start only.
     */
    'state-of-charge': z.union([sensorRef, z.array(timedSegment).max(10_000)]),
    /** FlexMeasures 1.0 output sensors for the schedule seen as consumption resp. production. */
    consumption: sensorRef,
    production: sensorRef,
  })
  .partial();
export type StorageFlexModel = z.output<typeof storageFlexModel>;

/** The process scheduler's flex-model (asset type `process`). */
export const processFlexModel = z.strictObject({
  duration: isoDuration,
  power: z.number().min(0),
  'process-type': z.enum(['INFLEXIBLE', 'BREAKABLE', 'SHIFTABLE']).optional(),
  'time-restrictions': z.array(z.strictObject({ start: awareDateTime, duration: isoDuration })).optional(),
  'optimization-sense': z.enum(['MAX', 'MIN']).optional(),
});
export type ProcessFlexModel = z.output<typeof processFlexModel>;

/** Flex-context quantities carry their unit: a bare number is refused rather than guessed. */
const variableWithUnit = z.union([sensorRef, z.string().max(100), z.array(timedSegment).max(10_000)]);

/**
 * A FlexMeasures 1.0 commitment: the flow of the site (or of the devices named in `sensors`)
 * deviating from a baseline power costs `up-price` per MW above it and `-down-price` per MW
 * below it, per step; prices per MW or per MWh (then per step length).
 */
export const commitment = z
  .strictObject({
    name: z.string().min(1).max(100),
    baseline: variableQuantity.optional(),
    'up-price': z.union([sensorRef, z.string().max(100), z.array(timedSegment).max(10_000)]).optional(),
    'down-price': z.union([sensorRef, z.string().max(100), z.array(timedSegment).max(10_000)]).optional(),
    sensors: z.array(id).optional(),
    /** An electrical group of the flex-model: Flexsite has no groups yet (refused when resolved). */
    group: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine((c, ctx) => {
    // 1.0's own messages, each under the field it names.
    if (c.baseline === undefined) ctx.addIssue({ code: 'custom', path: ['baseline'], message: 'A commitment requires a baseline.' });
    if (c.sensors && c.group) {
      ctx.addIssue({ code: 'custom', path: ['sensors'], message: "A commitment may be scoped by 'sensors' or by 'group', not both." });
    }
    if (c['up-price'] === undefined && c['down-price'] === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['up-price'],
        message: 'A commitment requires at least one deviation price (up-price and/or down-price).',
      });
    }
  });
export type Commitment = z.output<typeof commitment>;

export const flexContext = z
  .strictObject({
    'consumption-price-sensor': id,
    'production-price-sensor': id,
    'consumption-price': variableWithUnit,
    'production-price': variableWithUnit,
    'inflexible-device-sensors': z.array(id),
    /** FlexMeasures 1.0: inflexible devices whose positive values are consumption resp. production. */
    'inflexible-consumption': z.array(sensorRef),
    'inflexible-production': z.array(sensorRef),
    'site-power-capacity': variableWithUnit,
    'site-consumption-capacity': variableWithUnit,
    'site-production-capacity': variableWithUnit,
    /** FlexMeasures 1.0 soft constraints: breach prices per energy (SoC) or per power (capacities). */
    'soc-minima-breach-price': variableWithUnit,
    'soc-maxima-breach-price': variableWithUnit,
    'consumption-breach-price': variableWithUnit,
    'production-breach-price': variableWithUnit,
    'site-consumption-breach-price': variableWithUnit,
    'site-production-breach-price': variableWithUnit,
    /** Demand charges: the price per power of the peak above the threshold (default 0 kW). */
    'site-peak-consumption': variableWithUnit,
    'site-peak-consumption-price': variableWithUnit,
    'site-peak-production': variableWithUnit,
    'site-peak-production-price': variableWithUnit,
    'relax-constraints': z.boolean(),
    'relax-soc-constraints': z.boolean(),
    'relax-site-capacity-constraints': z.boolean(),
    'relax-capacity-constraints': z.boolean(),
    commitments: z.array(commitment),
    /** FlexMeasures 1.0 output sensor for the site's power: all scheduled and inflexible devices. */
    'aggregate-power': sensorRef,
    /** The same, seen as consumption resp. production (1.0's successors of `aggregate-power`). */
    'aggregate-consumption': sensorRef,
    'aggregate-production': sensorRef,
  })
  .partial();
export type FlexContext = z.output<typeof flexContext>;

/** A flex-model or flex-context in a trigger: a JSON object here, validated on its own. */
const flexObject = z.record(z.string(), z.unknown());

/** Body of POST /sensors/<id>/schedules/trigger. */
export const sensorTrigger = z.strictObject({
  start: awareDateTime,
  duration: isoDuration.optional(),
  /** FlexMeasures 1.0: the schedule's step, a whole multiple of the sensor's resolution; results are stored at the sensor's. */
  resolution: isoDuration.optional(),
  prior: awareDateTime.optional(),
  'flex-model': flexObject.optional(),
  'flex-context': flexObject.optional(),
  'force-new-job-creation': z.boolean().optional(),
  force_new_job_creation: z.boolean().optional(),
});

/**
 * Body of POST /assets/<id>/schedules/trigger: one flex-model per scheduled sensor; devices with a
 * flex-model stored on their asset need no entry.
 */
export const assetTrigger = sensorTrigger.extend({
  'flex-model': z.array(flexObject).optional(),
  /**
   * FlexMeasures 1.0: schedule the devices one after another rather than jointly. Accepted;
   * Flexsite schedules them jointly either way (see docs/flexmeasures-1.0.md).
   */
  sequential: z.boolean().optional(),
});

/** Query of GET /sensors/<id>/schedules/<uuid>; `unit` and `sign-convention` are FlexMeasures 1.0's. */
export const scheduleQuery = z.object({
  duration: isoDuration.optional(),
  unit: z.string().max(80).optional(),
  'sign-convention': z.enum(['consumption-positive', 'production-positive', 'wysiwyg']).optional(),
});
