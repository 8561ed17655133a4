import { z } from 'zod';
import { fixedDurationMs, id, isoDuration, text, timezone } from './fields.ts';

/**
 * Plain device set-up: a battery, an EV charger, solar panels or a heat pump/process described
 * in kW, kWh and %, or the site's house load or grid meter, from which the server makes the asset, its sensors and its flex-model; and
 * recurring state-of-charge targets ("80 % by 07:00 on weekdays") that automations turn into
 * each run's soc-targets.
 */

export const weekdays = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof weekdays)[number];

/** A quantity with its unit, as the flex-model writes it ("5 kW", "13.5 kWh", "95%"): no bare numbers to guess. */
const withUnit = z
  .string()
  .max(100)
  .regex(/^\s*[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?\s*[^\s\d.].*$/, 'Give a number with its unit, e.g. "5 kW".');

/** One recurring target: a share of the capacity ("80%") or an energy ("40 kWh") by a local time on some weekdays. */
export const recurringSocTarget = z.strictObject({
  days: z
    .array(z.enum(weekdays))
    .min(1, 'Choose at least one day on which to reach this target.')
    .max(7)
    .refine((days) => new Set(days).size === days.length, 'Name each day once.'),
  time: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'Use HH:mm, e.g. 07:00.'),
  value: withUnit,
  /** Where the time is read; by default the zone of the device's sensors. */
  timezone: timezone.optional(),
});
export type RecurringSocTargetInput = z.output<typeof recurringSocTarget>;

/** `PUT /assets/<id>/recurring-soc-targets`: the device's whole list, replacing what was stored. */
export const recurringSocTargetsPut = z.strictObject({ targets: z.array(recurringSocTarget).max(50) });

/** A stored recurring target. */
export const recurringSocTargetAnswer = recurringSocTarget.extend({ id, timezone });
export const recurringSocTargetList = z.object({ targets: z.array(recurringSocTargetAnswer) });

const common = {
  name: text(80),
  /** The time zone of the sensors made; by default the caller's (set for the account at set-up). */
  timezone: timezone.optional(),
  /** The power sensor's resolution (the schedule's step); 15 minutes by default. */
  resolution: fixedDurationMs.optional(),
};

/** Storage: the power it charges with, its capacity, a reserve kept, and its efficiencies. */
const storage = {
  power: withUnit,
  capacity: withUnit,
  /** The reserve: a share of the capacity ("10%") or an energy ("1 kWh"). */
  soc_min: withUnit.optional(),
  charging_efficiency: withUnit.optional(),
  discharging_efficiency: withUnit.optional(),
};

/** `POST /assets/<site id>/devices`. */
export const deviceSetup = z
  .discriminatedUnion('kind', [
    z.strictObject({ kind: z.literal('battery'), ...common, ...storage }),
    z.strictObject({
      kind: z.literal('ev-charger'),
      ...common,
      ...storage,
      /** Whether the charger can also discharge the car into the site (a two-way charger). */
      bidirectional: z.boolean().default(false),
      soc_targets: z.array(recurringSocTarget).max(50).default([]),
      /** The SoC the car is assumed to arrive with ("30%" or "12 kWh"), planned from while it reports none (soc-at-arrival). */
      arrival_soc: withUnit.optional(),
    }),
    z.strictObject({
      kind: z.literal('pv'),
      ...common,
      /** The array's peak power ("8 kWp" reads as "8 kW"). */
      power: withUnit,
      /** Panel tilt from horizontal, degrees; with `azimuth`, the forecast has the array's geometry from the first day. */
      tilt: z.number().min(0).max(90).optional(),
      /** The direction the panels face, degrees clockwise from north (180: south). */
      azimuth: z.number().min(0).lt(360).optional(),
    }),
    /** The site's consumption other than its flexible devices: what the plan is made against. */
    z.strictObject({ kind: z.literal('house-load'), ...common }),
    /** The meter at the grid connection: the site's net power, measured and planned. */
    z.strictObject({ kind: z.literal('grid-meter'), ...common }),
    z.strictObject({
      kind: z.literal('process'),
      ...common,
      power: withUnit,
      duration: isoDuration,
      process_type: z.enum(['INFLEXIBLE', 'BREAKABLE', 'SHIFTABLE']).default('SHIFTABLE'),
    }),
  ])
  // Every kind is an object: said once over the kinds, as OpenAPI readers expect of a body.
  .meta({ type: 'object' });
export type DeviceSetup = z.output<typeof deviceSetup>;

/** What a set-up made. */
export const deviceSetupAnswer = z.object({
  asset: z.object({ id, name: z.string(), generic_asset_type: z.string(), parent_asset_id: id }),
  sensors: z.array(z.object({ id, name: z.string(), unit: z.string(), timezone: z.string(), event_resolution: z.string() })),
  flex_model: z.record(z.string(), z.unknown()),
  /** The site's flex-context, where the set-up added the device (solar panels and the house load as inflexible devices, the grid meter as the site's power). */
  site_flex_context: z.record(z.string(), z.unknown()).optional(),
  soc_targets: z.array(recurringSocTargetAnswer),
});
export type DeviceSetupAnswer = z.output<typeof deviceSetupAnswer>;
