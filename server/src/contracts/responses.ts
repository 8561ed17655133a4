import { z } from 'zod';
import { batteryReplayResult } from './batteryReplay.ts';

/**
 * The bodies the API answers with, shared by the server (its routes declare them and, under
 * tests, answers are checked against them), the OpenAPI document and the web UI (its types are
 * inferred from these, and it checks answers in development). Only zod is imported here, so the
 * UI can bundle this module. Keys not listed pass unchecked: clients tolerate keys added later.
 */

const int = z.number().int();
const nullableInt = int.nullable();

/** A JSON document sent as a string, as FlexMeasures sends attributes and flex configuration; clients parse it themselves. */
const jsonText = z.string().meta({ contentMediaType: 'application/json' });

/** `"status": 200` that flask-json adds to single objects. */
const status200 = { status: z.literal(200) };

/** The USEF-style envelope of action answers: `{"status": "PROCESSED", "message": ...}`. */
export const processedAnswer = z.object({ status: z.string(), message: z.string() });
/** `POST /sensors/<id>/forecasts/trigger`: the queued job (`forecast` names it too, as 1.0 does). */
export const forecastTriggerAnswer = processedAnswer.extend({ job: z.string(), forecast: z.string() });

export const asset = z.object({
  id: int,
  name: z.string(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  generic_asset_type_id: int,
  account_id: nullableInt,
  parent_asset_id: nullableInt,
  attributes: jsonText,
  /** FlexMeasures 1.0: shown once some flex configuration is stored, always in the 1.0 dialect. */
  flex_context: jsonText.optional(),
  flex_model: jsonText.optional(),
  /** 1.0 dialect only. */
  sensors_to_show: jsonText.optional(),
  sensors_to_show_as_kpis: jsonText.optional(),
  /** FlexMeasures 1.0: always in the 1.0 dialect, in 0.18 once set. */
  description: z.string().nullable().optional(),
  external_id: z.string().nullable().optional(),
});

/** An asset as a listing with `fields` shows it: any subset of its keys. */
export const assetFields = asset.partial();

export const assetType = z.object({ id: int, name: z.string(), description: z.string().nullable() });

export const sensor = z.object({
  id: int,
  name: z.string(),
  unit: z.string(),
  timezone: z.string(),
  /** ISO 8601 duration. */
  event_resolution: z.string(),
  entity_address: z.string(),
  attributes: jsonText,
  generic_asset_id: int,
});

export const user = z.object({
  id: int,
  email: z.string(),
  username: z.string(),
  account_id: int,
  active: z.boolean(),
  timezone: z.string(),
  flexmeasures_roles: z.array(int),
  last_login_at: z.string().nullable(),
  last_seen_at: z.string().nullable(),
});

export const role = z.object({ id: int, name: z.string(), description: z.string() });

export const account = z.object({
  id: int,
  name: z.string(),
  consultancy_account_id: nullableInt,
  account_roles: z.array(z.object({ id: int, name: z.string() })),
});

/** `GET /accounts/<id>`: the account with what it holds. */
export const accountOverview = account.extend({ assets: z.array(asset), users: z.array(user), ...status200 });

export const source = z.object({
  id: int,
  name: z.string(),
  type: z.string(),
  model: z.string().nullable(),
  version: z.string().nullable(),
  account_id: nullableInt.optional(),
  user_id: nullableInt.optional(),
});

export const sourceList = z.object({ types: z.array(z.string()), sources: z.array(source) });

/** `GET /assets/<id>/jobs` (FlexMeasures 1.0). */
export const assetJobs = z.object({
  jobs: z.array(z.object({ job_id: z.string(), queue: z.string(), status: z.string(), entity: z.string() })),
  redis_connection_err: z.string().nullable(),
  ...status200,
});

/** A state-of-charge target of a job: at an instant, or over a window. */
export const socTarget = z.object({
  valueMwh: z.number(),
  atMs: z.number().optional(),
  startMs: z.number().optional(),
  endMs: z.number().optional(),
});

/**
 * One step of a soft constraint in FlexMeasures 1.0's words: the instant it applies at (UTC) and
 * by how much it was breached (`violation`) or met (`margin`), as a positive quantity with its
 * unit ("20.0 kWh"; device capacities in kW).
 */
export const constraintSlot = z.object({ datetime: z.string(), violation: z.string().optional(), margin: z.string().optional() });

/**
 * A device's soft constraints that were breached (`unresolved`) or met (`resolved`), by kind:
 * every step of that kind, chronologically. `asset` as in 1.0; `sensor` (the device's power
 * sensor) is Flexsite's addition, since devices may share an asset.
 */
export const deviceConstraints = z.object({
  asset: int,
  sensor: int,
  'soc-minima': z.array(constraintSlot).optional(),
  'soc-maxima': z.array(constraintSlot).optional(),
  'soc-targets': z.array(constraintSlot).optional(),
  'consumption-capacity': z.array(constraintSlot).optional(),
  'production-capacity': z.array(constraintSlot).optional(),
});
export type DeviceConstraints = z.infer<typeof deviceConstraints>;

/**
 * Something a finished job did that its result alone does not show: an input filled or extended
 * (which sensor, over which periods), the fallback scheduler used, a soft constraint not met, a
 * state of charge read away from the start. A job with warnings finished, but not as asked.
 */
export const jobWarning = z.object({
  code: z.enum([
    'input-extended',
    'input-assumed',
    'fallback',
    'constraint-unresolved',
    'soc-reading',
    'start-floored',
    'soc-unknown',
    'target-missed',
    'load-unknown',
    'load-negative',
  ]),
  message: z.string(),
  /** The flex-model or flex-context field concerned, e.g. `consumption-price`, `soc-targets`. */
  field: z.string().optional(),
  sensor_id: int.optional(),
  /** Where it applies: [start, end) in UTC. */
  periods: z.array(z.object({ start: z.string(), end: z.string() })).optional(),
});
export type JobWarning = z.infer<typeof jobWarning>;

/**
 * Beliefs a job stored in one go (a schedule, a forecast cycle): the source they are stored under
 * (the `scheduler` or forecaster source), when they were believed and the window [start, end)
 * they cover, in ms since the epoch.
 */
const storedBeliefs = z.object({ data_source_id: int, belief_time_ms: int, start_ms: int, end_ms: int });

/**
 * What a scheduling job stores: per device power and SoC, site power, prices and costs per step.
 * The one definition: the job handler (server/src/scheduling/runJob.ts) returns this type.
 */
export const jobResult = storedBeliefs.extend({
  step_ms: int,
  soc_unit: z.string().optional(),
  total_cost: z.number().optional(),
  /** How many beliefs (scheduled values) the job stored (FlexMeasures 1.0's `num-beliefs`). */
  'num-beliefs': z.number().optional(),
  /** The plan's energy cost against doing nothing (batteries idle, EVs charging at full power at once); currency null for a fixed price. */
  money: z.object({ currency: z.string().nullable(), plan_cost: z.number(), baseline_cost: z.number(), savings: z.number() }).optional(),
  devices: z.array(
    z.object({
      sensor_id: int,
      power_mw: z.array(z.number()),
      /** One more value than steps: the state at every step boundary. */
      soc_mwh: z.array(z.number()).optional(),
      soc_min_mwh: z.number().optional(),
      soc_max_mwh: z.number().optional(),
      soc_targets: z.array(socTarget).optional(),
    }),
  ),
  site_power_mw: z.array(z.number()).optional(),
  cost_per_step: z.array(z.number()).optional(),
  consumption_price: z.array(z.number()).optional(),
  /** Null when production is paid the consumption price. */
  production_price: z.array(z.number()).nullable().optional(),
  scheduler_info: z.object({ scheduler: z.string().optional() }).optional(),
  /** The solver's figures (iterations, binaries, gap, times). */
  stats: z.record(z.string(), z.unknown()).optional(),
  /** Where the job's time went: reading inputs, the worker thread, storing the result. */
  timing_ms: z.object({ read: z.number(), solve: z.number(), store: z.number() }).optional(),
  /** Cost per commitment (currency), by name: "energy", soft-constraint breaches, demand charges, the flex-context's commitments. */
  commitment_costs: z.record(z.string(), z.number()).optional(),
  /** Soft constraints per device: breached ones with their violation, met ones with their margin. */
  unresolved: z.array(deviceConstraints).optional(),
  resolved: z.array(deviceConstraints).optional(),
  /** The currency of the consumption price sensor (costs are in it); absent for fixed prices. */
  currency: z.string().optional(),
  warnings: z.array(jobWarning).optional(),
});

export const jobStatus = z.enum(['queued', 'started', 'finished', 'failed']);

export const job = z.object({
  id: z.string(),
  queue: z.string(),
  status: jobStatus,
  account_id: nullableInt,
  sensor_id: nullableInt,
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  attempts: int,
  args: z.unknown(),
  error: z.string().nullable(),
  /** infeasible, unknown-prices, interrupted, forbidden, invalid-input, not-found, conflict or internal; null unless failed. */
  error_kind: z.string().nullable(),
  fallback_job_id: z.string().nullable(),
  /** How far the job came, in its own steps (a battery replay's days); absent for jobs that report none. */
  progress: z.object({ done: int, total: int }).optional(),
  /** The finished job's warnings (also in its result), so that lists show them without the result. */
  warnings: z.array(jobWarning).optional(),
  // Results of other job kinds (processes, failures) have other shapes; the UI reads scheduling ones.
  result: z
    .union([jobResult, z.record(z.string(), z.unknown())])
    .nullable()
    .optional(),
});

/** What an automation run stores (server/src/automations/runAutomation.ts): its forecasts, the schedule job it queued and what the forecasts fed into it. */
export const automationJobResult = z.object({
  automation_id: int,
  due: z.string(),
  // `reused`: an earlier run's forecast, nothing it is made from having changed since (docs/job-reuse.md).
  forecasts: z.array(z.object({ sensor_id: int, data_source_id: int, method: z.string().optional(), reused: z.literal(true).optional() })),
  schedule_job_id: z.string().nullable(),
  // Only when the run answered with an earlier run's job, all it read being unchanged (docs/job-reuse.md).
  schedule_job_reused: z.literal(true).optional(),
  // Only when the run was recorded by the automation clock without a turn in the job queue, having found the job of its automation's last run with all it read unchanged (docs/job-reuse.md).
  without_queue: z.literal(true).optional(),
  schedule_inputs: z.object({ inflexible_device_sensors: z.array(int), consumption_price_sensor: nullableInt }).nullable(),
  // Only when the device's recurring SoC targets fell in this run's window.
  soc_targets: z.array(z.object({ value: z.union([z.string(), z.number()]), datetime: z.string() })).optional(),
});
export type AutomationJobResult = z.infer<typeof automationJobResult>;

/** What a forecasting job stores (server/src/forecasting/forecastJob.ts): the source, each cycle, the method and its backtest. */
export const forecastJobResult = z.object({
  data_source_id: int,
  sensor_id: int,
  start_ms: int,
  end_ms: int,
  cycles: z.array(
    storedBeliefs.extend({
      method: z.string(),
      // When the cycle ran and for how long: what a schedule queued behind it waited for (bench/fairness.ts).
      ran_at_ms: z.number().optional(),
      ran_ms: z.number().optional(),
    }),
  ),
  method: z.string(),
  backtest: z.unknown(),
  message: z.string().optional(),
});
export type ForecastJobResult = z.infer<typeof forecastJobResult>;

/**
 * A job as the UI reads it from `GET /jobs/<uuid>` in either dialect: the state in either case
 * (1.0 writes capitals), the result in the shape of its queue (scheduling, automation,
 * forecasting or battery replay), so that the development check accepts every job the Jobs page links to.
 */
export const schedulingJob = job.extend({
  status: z.string(),
  result: z.union([jobResult, automationJobResult, forecastJobResult, batteryReplayResult]).nullable().optional(),
});

/** One belief as the chart endpoints give it. */
export const chartRecord = z.object({
  sensor_id: int,
  sensor: z.string(),
  unit: z.string(),
  /** Event start in the site's time zone, ISO 8601 with offset. */
  event_start: z.string(),
  event_value: z.number(),
  /** When the value was known, in the site's time zone. */
  belief_time: z.string(),
  source: z.string(),
  source_id: int,
  source_type: z.string(),
  /** The event start as the site's wall-clock time encoded as UTC epoch ms (for a `utc` time scale). */
  local_time: z.number(),
});

/** A Vega-Lite specification as the chart endpoints return it. */
export const chartSpec = z.record(z.string(), z.unknown());

/** `GET /sensors/data` and `GET /sensors/<id>/data`. */
export const sensorDataAnswer = processedAnswer.extend({
  values: z.array(z.number().nullable()),
  start: z.string(),
  duration: z.string(),
  unit: z.string(),
  resolution: z.string(),
});

/** The answer to a trigger: the job id under `schedule`. */
export const triggerAnswer = processedAnswer.extend({ schedule: z.string() });

/** `GET /sensors/<id>/schedules/<uuid>`. */
export const scheduleAnswer = processedAnswer.extend({
  values: z.array(z.number().nullable()),
  start: z.string(),
  duration: z.string(),
  unit: z.string(),
  scheduler_info: z.object({ scheduler: z.string() }),
});

export const serviceListing = processedAnswer.extend({
  services: z.array(z.object({ description: z.string(), name: z.string(), url: z.string() })),
  version: z.string(),
});

export const readinessAnswer = z.object({
  database_sql: z.boolean(),
  database_redis: z.boolean().optional(),
  status: z.union([z.literal(200), z.literal(503)]),
});

export const setupState = z.object({ needed: z.boolean(), local: z.boolean(), ...status200 });

export const setupAnswer = z.object({ account, user, auth_token: z.string(), site: z.object({ id: int, name: z.string() }).optional() });

export const tokenAnswer = z.object({ auth_token: z.string(), user_id: int, ...status200 });

export const versionsAnswer = z.object({
  flexmeasures_version: z.string(),
  message: z.string(),
  versions: z.array(z.string()),
  ...status200,
});

export const pingAnswer = z.object({ message: z.string(), ...status200 });

/** The OpenAPI document itself. */
export const openApiAnswer = z.object({ openapi: z.string(), paths: z.record(z.string(), z.unknown()) });

/** Answers with nothing but `"status": 200` (password reset). */
export const statusOnly = z.object(status200);

/** Answers of the legacy (1.x, 2.0) message endpoints: a USEF-style envelope, often with a `type`. */
export const legacyAnswer = processedAnswer.extend({ type: z.string().optional() });

/** An API 2.0 asset: a power sensor with the asset it sits on. */
export const v2Asset = z.object({ id: int, name: z.string(), unit: z.string(), owner_id: nullableInt });

/** An API 2.0 user. */
export const v2User = z.object({ id: int, email: z.string(), username: z.string(), account_id: int });

/** Single objects, with flask-json's `"status": 200`. */
export const assetAnswer = asset.extend(status200);
export const sensorAnswer = sensor.extend(status200);
export const userAnswer = user.extend(status200);

/** Lists, as the UI asks for them. */
export const assetList = z.array(asset);
export const assetTypeList = z.array(assetType);
export const sensorList = z.array(sensor);
export const userList = z.array(user);
export const roleList = z.array(role);
export const accountList = z.array(account);
export const chartRecordList = z.array(chartRecord);
/** `GET /jobs` lists jobs without their results. */
export const jobList = z.array(job.omit({ result: true }));

export type Asset = z.infer<typeof asset>;
export type AssetType = z.infer<typeof assetType>;
export type Sensor = z.infer<typeof sensor>;
export type User = z.infer<typeof user>;
export type Role = z.infer<typeof role>;
export type Account = z.infer<typeof account>;
export type AccountOverview = z.infer<typeof accountOverview>;
export type Source = z.infer<typeof source>;
export type SocTarget = z.infer<typeof socTarget>;
export type JobResult = z.infer<typeof jobResult>;
export type JobStatus = z.infer<typeof jobStatus>;
/** A job with its state in lower case, as the UI keeps it. */
export type Job = Omit<z.infer<typeof schedulingJob>, 'status'> & { status: JobStatus };
export type ChartRecord = z.infer<typeof chartRecord>;
export type ChartSpec = z.infer<typeof chartSpec>;
export type SetupState = z.infer<typeof setupState>;

/** An automation of an asset, with its last queued and next due run (ISO 8601, UTC). */
export const automation = z.object({
  id: int,
  asset_id: int,
  name: z.string(),
  cron: z.string(),
  timezone: z.string(),
  forecast_sensor_ids: z.array(int),
  schedule_sensor_id: nullableInt,
  /** Its sensors as people name them, by id: the device's name first ("Home battery power"). */
  sensor_names: z.record(z.string(), z.string()),
  horizon: z.string(),
  enabled: z.boolean(),
  owner_id: nullableInt,
  last_run: z.string().nullable(),
  last_job_id: z.string().nullable(),
  /**
   * How the last run went: its schedule job's outcome when it queued one (`warnings`: finished,
   * but not as asked), else its own; `job_id` the job to look at. Null before a first run and
   * after its jobs expired.
   */
  last_outcome: z
    .object({
      status: z.enum(['queued', 'running', 'success', 'warnings', 'failed']),
      job_id: z.string(),
      finished_at: z.string().nullable(),
      message: z.string().nullable(),
    })
    .nullable(),
  next_run: z.string().nullable(),
});
export const automationList = z.array(automation);

const forecastScores = z.object({ mae: z.number().nullable(), rmse: z.number().nullable(), count: int });

/** The forecasting method chosen for a sensor, and the backtest it was chosen by (null: too little history). */
export const forecastBacktest = z.object({
  sensor_id: int,
  method: z.string(),
  data_source_id: int,
  chosen_at: z.string(),
  backtest: z
    .object({
      origins: int,
      chosen: z.string(),
      baseline: z.string(),
      skill: z.number().nullable(),
      methods: z.record(z.string(), forecastScores),
      perHorizon: z.array(
        forecastScores.extend({
          fromH: z.number(),
          toH: z.number().nullable(),
          baselineMae: z.number().nullable(),
          skill: z.number().nullable(),
        }),
      ),
    })
    .nullable(),
  /** Why there is no backtest, when there is none. */
  message: z.string().optional(),
});
export type Automation = z.infer<typeof automation>;
export type ForecastBacktest = z.infer<typeof forecastBacktest>;
