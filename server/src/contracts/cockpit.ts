import { z } from 'zod';
import { jobWarning } from './responses.ts';

/** What steps cost, planned and realised, against doing nothing (see `queries/moneyFigures.ts`), in the schedules' currency. */
const money = z.object({
  plan_cost: z.number().describe('What the plans in force at the steps cost.'),
  baseline_cost: z.number().describe('What the same steps cost doing nothing: batteries idle, EVs charging at full power from the start.'),
  planned_savings: z.number(),
  realised_cost: z
    .number()
    .nullable()
    .describe("The steps measured so far: the site's measured net grid flow × the step's price (null when none is)."),
  realised_savings: z
    .number()
    .nullable()
    .describe('The measured steps with the devices doing nothing and the rest of the site as it was, minus their realised cost.'),
});

/** Money figures of a period. */
const kpiFigures = money.extend({
  steps: z.number().int(),
  measured_steps: z.number().int(),
  fallback_steps: z.number().int().describe('Steps whose plan in force came from the fallback scheduler: the figures are degraded.'),
  past_steps: z.number().int().describe('Steps begun by `now`; the others count as the plan in force now says.'),
  measured_from: z.string().nullable(),
  measured_to: z.string().nullable(),
});

const periodFigures = kpiFigures.extend({ period: z.string() });

/** One part of a site: a device (its power sensor) or, with `sensor_id` null, the rest of the site (planned as forecast, realised as `rest_of_site` says). */
const partFigures = money.extend({
  sensor_id: z.number().int().nullable(),
  name: z.string(),
  asset: z.string().nullable(),
  planned_charged_mwh: z.number(),
  planned_discharged_mwh: z.number(),
  ahead_charged_mwh: z.number().describe('Planned for the steps not yet begun.'),
  ahead_discharged_mwh: z.number(),
  measured_charged_mwh: z.number(),
  measured_discharged_mwh: z.number(),
});

/** Where measured money takes the site's load without the flexible devices from. */
const restOfSite = z
  .enum(['measured', 'forecast'])
  .describe(
    "The site's load without the flexible devices: its grid meter less the devices' measured power, or without a grid meter the plan's forecast.",
  );

/** `GET /assets/<id>/kpis`: what the asset's schedules cost against doing nothing, planned and realised. */
export const assetKpis = z.object({
  asset_id: z.number().int(),
  /** Null when the prices were fixed (no price sensor) or the schedules used different currencies. */
  currency: z.string().nullable(),
  rest_of_site: restOfSite.describe("Where the realised figures' rest of the site comes from."),
  /** The zone whose days and months the periods are: the site's (its sensors'). */
  timezone: z.string(),
  now: z.string().describe('When the figures were made: steps begun before it are past.'),
  start: z.string(),
  end: z.string(),
  total: kpiFigures,
  so_far: kpiFigures.describe('The steps begun by `now`: a plan made later does not change them.'),
  ahead: kpiFigures.describe('The steps from `now` on, as the plan in force now says.'),
  days: z.array(
    periodFigures.extend({ devices: z.array(partFigures).describe('Per device and the rest of the site; they add up to the day.') }),
  ),
  months: z.array(periodFigures),
  devices: z.array(partFigures),
  plans: z
    .array(
      z.object({
        job_id: z.string(),
        made_at: z
          .string()
          .describe("The plan's belief time: it is in force at the steps that start at or after it, until a newer plan is made."),
        start: z.string(),
        end: z.string(),
        fallback: z.boolean(),
        steps: z.number().int(),
      }),
    )
    .describe('The plans in force at some step of the window, newest first.'),
  /** FlexMeasures 1.0's sensor KPIs (the asset's `sensors_to_show_as_kpis`). */
  data: z.array(
    z.object({
      title: z.string(),
      unit: z.string(),
      sensor: z.number().int(),
      downsample_value: z.number(),
      downsample_function: z.enum(['sum', 'min', 'max', 'mean']),
    }),
  ),
});

/** What a notification is about. */
export const notificationKinds = [
  'schedule-failed',
  'schedule-fallback',
  'schedule-warnings',
  'target-missed',
  'sensor-stale',
  'automation-failed',
  'prices-failed',
] as const;

/** A notification (`GET /notifications`, and the body posted to an account's webhook). */
export const notification = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  kind: z.enum(notificationKinds),
  /** What it is about (a job, a sensor's stale spell); one notification per subject. */
  subject: z.string(),
  message: z.string(),
  sensor_id: z.number().int().nullable(),
  /** The sensor as people name it, its device's name first ("Home battery power"). */
  sensor_name: z.string().nullable(),
  /** The device (asset) the sensor belongs to. */
  asset_id: z.number().int().nullable(),
  /** The sensor's time zone, the site's, which the notification's times are read in. */
  timezone: z.string().nullable(),
  job_id: z.string().nullable(),
  created_at: z.string(),
  acknowledged_at: z.string().nullable(),
  acknowledged_by: z.number().int().nullable(),
});

/** `POST /notifications/acknowledge`: whose notifications (the caller's own account by default). */
export const acknowledgeAll = z.strictObject({ account_id: z.number().int().positive().optional() });
/** How many notifications that acknowledged. */
export const acknowledgedAll = z.object({ acknowledged: z.number().int() });

/** Where an account's notifications are posted besides the mail outbox. */
export const notificationSettings = z.object({ webhook_url: z.string().max(2000).nullable() });

/** `GET /assets/<id>/now`: the latest value of each sensor of a site and the health of its data. */
export const siteNow = z.object({
  asset_id: z.number().int(),
  now: z.string(),
  timezone: z.string().nullable().describe("The site's time zone (its sensors'), which the page reads times in; null without sensors."),
  sensors: z.array(
    z.object({
      id: z.number().int(),
      name: z.string(),
      unit: z.string(),
      /** How a power sensor's values are signed (its `consumption_is_positive`); null for other sensors. */
      sign: z.enum(['consumption positive', 'production positive']).nullable(),
      /** The asset the sensor belongs to (the site or one below it). */
      asset: z.string(),
      resolution_minutes: z.number(),
      /** The latest measured event (not a plan or forecast, nor a belief made before the event began); its age counts from the event's end. */
      latest: z.object({ event_start: z.string(), value: z.number(), age_seconds: z.number() }).nullable(),
      /** The latest measurement ended more than `stale_after_minutes` ago. */
      stale: z.boolean(),
      /** How long a sensor may be silent: twice its resolution, or for an instantaneous sensor the appliance's setting (FLEXSITE_INSTANT_STALE_AFTER). */
      stale_after_minutes: z.number(),
      /** Intervals of today (sensor's zone) that ended without a measurement; null for instantaneous sensors. */
      gaps_today: z.number().int().nullable(),
      last_upload: z.object({ at: z.string(), source: z.string() }).nullable(),
      /** Payloads the sensor's MQTT device links could not read: how many, the last one's arrival; null without such a link. */
      malformed_messages: z.object({ count: z.number().int(), last_at: z.string().nullable() }).nullable(),
      /**
       * A power sensor whose every value of yesterday (its zone; all intervals measured) is below
       * zero read consumption positive: a load with the wrong sign, most likely. Null otherwise.
       */
      negative_all_day: z.object({ day: z.string(), values: z.number().int() }).nullable(),
    }),
  ),
  /**
   * The site's power flow from its devices' latest measurements, one entry per part the site has
   * (a device's type gives its part; the site's own power sensor is the grid when it is its only
   * one and no grid meter is there). Values in kW in each part's own direction, whatever sign its sensors store:
   * grid positive = import, negative = export; pv positive = production; battery positive =
   * charging, negative = discharging; house and car positive = consumption; soc in %. Several
   * sensors of one part are summed (soc: averaged). `stale` when a sensor of the part is stale or
   * never measured; `since` is the end of its oldest latest measurement.
   */
  flow: z.array(
    z.object({
      role: z.enum(['grid', 'pv', 'battery', 'soc', 'house', 'car']),
      unit: z.enum(['kW', '%']),
      value: z.number().nullable(),
      stale: z.boolean(),
      since: z.string().nullable(),
      sensor_ids: z.array(z.number().int()),
    }),
  ),
});

/** A part of a period (a day's hours, a week's or a month's days, a year's months), as its chart shows it. */
const partEnergy = z.object({
  period: z.string().describe('The local hour (HH:mm), date or month.'),
  start: z.string(),
  imported_kwh: z.number(),
  exported_kwh: z.number(),
  pv_kwh: z.number(),
  consumed_kwh: z.number(),
});

/** A period's money, each step at the prices of the plan in force at it, in the answer's currency. */
const periodMoney = z
  .object({
    cost: z
      .number()
      .nullable()
      .describe("Cost as it was: the site's measured net grid flow × the step's price; null when no step was measured."),
    cost_without_flex: z
      .number()
      .nullable()
      .describe(
        'The same steps with the flexible devices doing nothing (batteries idle, EVs charging at once) and the rest of the site as it was.',
      ),
    savings: z.number().nullable().describe('Cost without flex − cost.'),
    rest_of_site: restOfSite,
    steps: z.number().int().describe('Steps with a plan in force.'),
    measured_steps: z
      .number()
      .int()
      .describe('Of those, the steps whose devices (and grid meter) were all measured: the money counts these.'),
    fallback_steps: z.number().int().describe('Steps planned by the fallback scheduler: degraded figures.'),
  })
  .describe(
    "Each step with a plan in force (as `GET /assets/<id>/kpis` picks it) at that plan's prices: buying at the consumption price and selling at the production price by the sign of the net flow. The flexible devices are those the plans schedule.",
  );

/** The measured energy of one period (kWh) and the shares made of it. */
const periodEnergy = z.object({
  period: z.string().describe('The local date, ISO week (2025-W13), month or year.'),
  start: z.string(),
  end: z.string(),
  hours: z.number().describe('23 or 25 on a daylight-saving day.'),
  imported_kwh: z.number().describe("The grid meter's consumed part."),
  exported_kwh: z.number().describe("The grid meter's produced part."),
  pv_kwh: z.number(),
  consumed_kwh: z.number().describe('Imported − exported + PV − what the batteries kept (charged − discharged).'),
  self_consumption_percent: z.number().nullable().describe('(PV − exported) / PV; null without PV.'),
  self_sufficiency_percent: z.number().nullable().describe('(consumed − imported) / consumed; null without consumption.'),
  battery_charged_kwh: z.number(),
  battery_discharged_kwh: z.number(),
  battery_throughput_kwh: z.number().describe('Charged + discharged.'),
  battery_cycles: z.number().nullable().describe("Throughput / 2 / the batteries' capacity (soc-max); null without one."),
  ev_kwh: z.number().describe('What the EV chargers delivered.'),
  ev_solar_kwh: z
    .number()
    .describe("Per hour, the EV charge the panels covered beyond the rest of the site's use; a battery's discharge is not solar."),
  ev_solar_percent: z.number().nullable().describe('EV solar / EV energy; null without EV energy.'),
  money: periodMoney,
  parts: z.array(partEnergy).describe("A day's hours, a week's or a month's days, a year's months, in the site's zone."),
});

/** `GET /assets/<id>/energy`: a period's measured energy and the period before it. */
export const energyPeriods = z.object({
  asset_id: z.number().int(),
  timezone: z.string(),
  currency: z.string().nullable().describe("The currency of the plans in force (the site's prices); null when unknown or mixed."),
  period: z.enum(['day', 'week', 'month', 'year']),
  roles: z
    .array(z.object({ sensor_id: z.number().int(), name: z.string(), role: z.enum(['grid', 'pv', 'battery', 'ev', 'load']) }))
    .describe("The power sensors counted, by their device's role (its asset type)."),
  current: periodEnergy,
  previous: periodEnergy,
});

/** A stretch of a window, ISO 8601 in the site's zone. */
const span = z.object({ start: z.string(), end: z.string() });

/** A power sensor of the site, by the name the page shows for it. */
const powerSensor = z.object({ sensor_id: z.number().int(), name: z.string() });

/** `GET /assets/<id>/plan-ahead`: the next hours of a site's plan, its prices and forecasts. */
export const planAhead = z.object({
  asset_id: z.number().int(),
  timezone: z.string().describe("The site's zone (its sensors'); every time is given in it."),
  now: z.string(),
  start: z.string().describe('The start of the current hour.'),
  end: z.string().describe('`hours` after now, rounded up to the hour.'),
  sign: z
    .literal('consumption positive')
    .describe('Every power is in kW, consumption positive: charging a battery and using power are positive, PV is negative.'),
  currency: z.string().nullable().describe("The prices' currency (null when unknown or mixed)."),
  devices: z.array(
    powerSensor.extend({
      asset: z.string(),
      steps: z.array(
        span.extend({
          power_kw: z.number(),
          soc_start_kwh: z.number().nullable(),
          soc_end_kwh: z.number().nullable().describe("The plan's state of charge at the step's end; null when its job is no longer kept."),
          job_id: z.string().describe('The plan in force at the step: the newest made at or before its start.'),
        }),
      ),
      no_plan: z.array(span).describe('Where no plan is in force for the device: unknown, not zero.'),
      targets: z.array(
        z.object({
          at: z.string(),
          soc_kwh: z.number(),
          job_id: z.string().nullable().describe('The plan in force that holds the target; null when none does (not planned yet).'),
          met: z.boolean().nullable().describe('Whether that plan reaches the target; null when not planned yet.'),
        }),
      ),
    }),
  ),
  prices: z.array(
    span
      .extend({ consumption: z.number(), production: z.number(), job_id: z.string() })
      .describe('The prices (per MWh) the plan in force at the step was made against.'),
  ),
  no_prices: z.array(span),
  forecasts: z.array(
    powerSensor.extend({
      role: z.enum(['pv', 'load']),
      values: z.array(span.extend({ power_kw: z.number() })).describe("A forecaster's newest values known now."),
      no_forecast: z.array(span),
    }),
  ),
  plans: z.array(
    z.object({
      job_id: z.string(),
      made_at: z.string(),
      scheduler: z.string().nullable(),
      fallback: z.boolean(),
      degraded: z
        .boolean()
        .describe('Made by the fallback scheduler or with warnings (a target missed, inputs filled): not a plain success.'),
      warnings: z.array(jobWarning),
    }),
  ),
});
