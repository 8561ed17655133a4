import net from 'node:net';
import path from 'node:path';
import { z } from 'zod';
import { parseIsoDuration } from './domain/time.ts';

/**
 * Every setting of the appliance, read from the environment. `PORT` and `HOST` keep their
 * conventional names; everything else carries the `FLEXSITE_` prefix.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** A shared PostgreSQL store instead of the data folder's SQLite file (scale-out). */
  databaseUrl: string | null;
  /** Jobs on BullMQ in this Redis instead of the in-process queue (scale-out). */
  redisUrl: string | null;
  /** What this process does: serve the API, run jobs, or both. */
  role: 'all' | 'api' | 'worker';
  logLevel: string;
  /** Seconds a token stays valid. */
  tokenMaxAgeS: number;
  /** Login attempts per minute for one account e-mail, and from one client address. */
  loginAttemptsPerEmail: number;
  loginAttemptsPerAddress: number;
  /** Default schedule length when a trigger sends no duration. */
  planningHorizonMs: number;
  /** Longest schedule: a number of steps of the sensor's resolution, or a fixed duration. */
  maxPlanningHorizon: { steps: number } | { ms: number };
  /** A state-of-charge measurement older than this many schedule steps at the start makes the job warn that the SoC is unknown. */
  socMaxAgeSteps: number;
  /** An instantaneous sensor (a state of charge) with no reading for longer than this is stale; interval sensors go stale after twice their resolution. */
  instantStaleMs: number;
  jobCacheTtlS: number;
  /** Finished scheduling jobs are kept this long. */
  planningTtlMs: number;
  /** Queued jobs that did not start within this time expire. */
  jobTtlMs: number;
  /** Limits on what one account may start (issue 20): how often an automation runs, how many there are, how long a forecast is. */
  limits: {
    automationMinIntervalMs: number;
    automationsPerAsset: number;
    automationsPerAccount: number;
    maxForecastMs: number;
    maxForecastCycles: number;
    tariffsPerAccount: number;
    /** Tariffs write every interval of their price sensors three days ahead each hour: finer sensors are refused. */
    tariffMinResolutionMs: number;
    priceConnectorsPerAccount: number;
  };
  allowDataOverwrite: boolean;
  fallbackRedirect: boolean;
  /** Which FlexMeasures release's answers win where 0.18 and 1.0 (API v3.0-32) answer the same request differently. */
  apiCompat: '0.18' | '1.0';
  /** Worker threads for scheduling jobs. */
  workerThreads: number;
  /** How long a scheduling thread outlives its last task (ms): memory given back against a warm solver. */
  workerIdleMs: number;
  /** Entity-address date codes per host, e.g. {"flexmeasures.io": "2021-01"}. */
  hostsAndAuthStart: Record<string, string>;
  legacyApi: 'sunset' | 'serve';
  sunsetDate: string | null;
  sunsetLink: string | null;
  /** The operator's folder of scheduler plugins (`custom-scheduler`); null: none. */
  schedulerPluginsDir: string | null;
  /** Where links in mails point (behind a proxy, the address people use); null: the address a request reached. */
  publicUrl: string | null;
  /** The ENTSO-E transparency platform's API, and the operator's security token for it (null: connector off). */
  entsoe: { url: string; token: string | null };
  /** Devices on the LAN: no MQTT, an embedded broker, or a broker of the site's own. */
  mqtt: MqttSettings;
}

/** Where devices' MQTT traffic goes; credentials come from the settings, never from stored data. */
export type MqttSettings =
  | { mode: 'off' }
  | { mode: 'embedded'; host: string; port: number; clientId: string }
  | { mode: 'external'; url: string; username: string | null; password: string | null; clientId: string };

const bool = z
  .string()
  .regex(/^(1|0|true|false)$/i, 'expected 1, 0, true or false')
  .transform((v) => v === '1' || v.toLowerCase() === 'true');
const count = (min: number) =>
  z
    .string()
    .regex(/^\d+$/, 'expected a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`));
const duration = z.string().transform((v, ctx) => {
  const d = parseIsoDuration(v);
  if (typeof d === 'string' || d.nominal || d.ms <= 0) {
    ctx.addIssue({ code: 'custom', message: `expected a positive ISO 8601 duration such as PT48H, got "${v}"` });
    return z.NEVER;
  }
  return d.ms;
});
const stepsOrDuration = z.string().transform((v, ctx): Config['maxPlanningHorizon'] => {
  if (/^\d+$/.test(v)) {
    if (Number(v) >= 1) return { steps: Number(v) };
  } else {
    const d = parseIsoDuration(v);
    if (typeof d !== 'string' && !d.nominal && d.ms > 0) return { ms: d.ms };
  }
  ctx.addIssue({ code: 'custom', message: `expected a positive number of steps or ISO 8601 duration, got "${v}"` });
  return z.NEVER;
});

/** A setting without a default is null when unset: how Config says "not set", declared once with the setting. */
const unsetIsNull = <T extends z.ZodType<string, string>>(setting: T) => setting.nullable().default(null);

const hostName = /^(?=.{1,253}$)[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/i;

const schema = z.object({
  PORT: count(0).default(5000).pipe(z.number().max(65535, 'must be at most 65535')),
  HOST: z
    .string()
    .refine((v) => net.isIP(v) !== 0 || hostName.test(v), 'expected an IP address or a host name, such as 127.0.0.1 or 0.0.0.0')
    .default('127.0.0.1'),
  FLEXSITE_DATA_DIR: z.string().min(1).default('./data'),
  FLEXSITE_DATABASE_URL: unsetIsNull(z.string().regex(/^postgres(ql)?:\/\//i, 'expected a postgres:// URL')),
  FLEXSITE_REDIS_URL: unsetIsNull(z.string().regex(/^rediss?:\/\//i, 'expected a redis:// URL')),
  FLEXSITE_ROLE: z.enum(['all', 'api', 'worker']).default('all'),
  FLEXSITE_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  FLEXSITE_TOKEN_MAX_AGE: count(1).default(21600),
  FLEXSITE_LOGIN_ATTEMPTS_PER_EMAIL: count(1).default(10),
  FLEXSITE_LOGIN_ATTEMPTS_PER_ADDRESS: count(1).default(30),
  FLEXSITE_PLANNING_HORIZON: duration.default(48 * 3600_000),
  FLEXSITE_MAX_PLANNING_HORIZON: stepsOrDuration.default({ steps: 2520 }),
  FLEXSITE_SOC_MAX_AGE_STEPS: count(0).default(2),
  FLEXSITE_INSTANT_STALE_AFTER: duration.default(3600_000),
  FLEXSITE_JOB_CACHE_TTL: count(0).default(3600),
  FLEXSITE_PLANNING_TTL: duration.default(7 * 24 * 3600_000),
  FLEXSITE_JOB_TTL: duration.default(24 * 3600_000),
  // Never more often than once a minute: more would let one user keep the job queue busy.
  FLEXSITE_AUTOMATION_MIN_INTERVAL: duration.pipe(z.number().min(60_000, 'must be at least PT1M')).default(60_000),
  FLEXSITE_AUTOMATIONS_PER_ASSET: count(1).default(10),
  FLEXSITE_AUTOMATIONS_PER_ACCOUNT: count(1).default(100),
  FLEXSITE_MAX_FORECAST_DURATION: duration.default(370 * 86_400_000),
  FLEXSITE_MAX_FORECAST_CYCLES: count(1).default(400),
  // A tariff writes three days of its sensors' intervals every hour: 20 tariffs on 15-minute
  // sensors are under 6,000 rows a tick; 200 on a 1-minute sensor were 689,000 rows in two minutes.
  FLEXSITE_TARIFFS_PER_ACCOUNT: count(1).default(20),
  FLEXSITE_TARIFF_MIN_RESOLUTION: duration.default(15 * 60_000),
  // Each bidding zone is fetched once per tick whatever the number of connectors; the limit keeps
  // one account from filling the store with copies of the same prices.
  FLEXSITE_PRICE_CONNECTORS_PER_ACCOUNT: count(1).default(10),
  FLEXSITE_ALLOW_DATA_OVERWRITE: bool.default(false),
  FLEXSITE_FALLBACK_REDIRECT: bool.default(false),
  FLEXSITE_API_COMPAT: z.enum(['0.18', '1.0']).default('0.18'),
  FLEXSITE_WORKER_THREADS: count(1).default(1),
  // A site schedules every few minutes: within this the next schedule finds its thread warm.
  FLEXSITE_WORKER_IDLE: duration.default(15 * 60_000),
  FLEXSITE_HOSTS_AND_AUTH_START: z
    .string()
    .transform((v, ctx) => {
      try {
        return z.record(z.string(), z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/)).parse(JSON.parse(v));
      } catch {
        ctx.addIssue({ code: 'custom', message: 'expected a JSON object of host → "YYYY-MM"' });
        return z.NEVER;
      }
    })
    .default({ 'flexmeasures.io': '2021-01' }),
  FLEXSITE_LEGACY_API: z.enum(['sunset', 'serve']).default('sunset'),
  FLEXSITE_API_SUNSET_DATE: unsetIsNull(z.string()),
  FLEXSITE_API_SUNSET_LINK: unsetIsNull(z.string()),
  FLEXSITE_SCHEDULER_PLUGINS: unsetIsNull(z.string()),
  FLEXSITE_PUBLIC_URL: unsetIsNull(
    z
      .string()
      .regex(/^https?:\/\/[^/?#@\s]+\/?$/i, 'expected an http(s) origin such as https://flexsite.example.org')
      .transform((v) => v.replace(/\/$/, '')),
  ),
  FLEXSITE_ENTSOE_URL: z.url({ protocol: /^https?$/ }).default('https://web-api.tp.entsoe.eu/api'),
  FLEXSITE_ENTSOE_TOKEN: unsetIsNull(z.string()),
  FLEXSITE_MQTT: z.enum(['off', 'embedded']).default('off'),
  FLEXSITE_MQTT_URL: unsetIsNull(
    z
      .string()
      .regex(
        /^mqtts?:\/\/[^/?#@\s]+\/?$/i,
        'expected mqtt://host:port or mqtts://host:port (user and password go in FLEXSITE_MQTT_USERNAME and FLEXSITE_MQTT_PASSWORD)',
      ),
  ),
  FLEXSITE_MQTT_USERNAME: unsetIsNull(z.string()),
  FLEXSITE_MQTT_PASSWORD: unsetIsNull(z.string()),
  // Devices are on the LAN, so the embedded broker listens on every interface unless told otherwise.
  FLEXSITE_MQTT_HOST: z
    .string()
    .refine((v) => net.isIP(v) !== 0 || hostName.test(v), 'expected an IP address or a host name')
    .default('0.0.0.0'),
  FLEXSITE_MQTT_PORT: count(0).default(1883).pipe(z.number().max(65535, 'must be at most 65535')),
  // The broker keeps what arrives while Flexsite is away for this client id (a persistent session).
  FLEXSITE_MQTT_CLIENT_ID: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,23}$/, 'expected 1 to 23 letters, digits, - or _')
    .default('flexsite'),
});

/** Names and meanings of the settings, for the README and for error messages. */
export const settingNames = Object.keys(schema.shape);

/**
 * Reads and validates the settings.
 * @param env the environment to read, normally process.env.
 * @returns the configuration, or throws ConfigError listing every bad value.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings count as unset, as a shell `FOO= cmd` usually means "default".
  const present = Object.fromEntries(Object.entries(env).filter(([k, v]) => k in schema.shape && v !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  if (e.FLEXSITE_ROLE !== 'all' && (!e.FLEXSITE_DATABASE_URL || !e.FLEXSITE_REDIS_URL)) {
    // Split processes share work only through a shared store and queue.
    throw new ConfigError([`FLEXSITE_ROLE: ${e.FLEXSITE_ROLE} needs FLEXSITE_DATABASE_URL and FLEXSITE_REDIS_URL`]);
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.FLEXSITE_DATA_DIR),
    databaseUrl: e.FLEXSITE_DATABASE_URL,
    redisUrl: e.FLEXSITE_REDIS_URL,
    role: e.FLEXSITE_ROLE,
    logLevel: e.FLEXSITE_LOG_LEVEL,
    tokenMaxAgeS: e.FLEXSITE_TOKEN_MAX_AGE,
    loginAttemptsPerEmail: e.FLEXSITE_LOGIN_ATTEMPTS_PER_EMAIL,
    loginAttemptsPerAddress: e.FLEXSITE_LOGIN_ATTEMPTS_PER_ADDRESS,
    planningHorizonMs: e.FLEXSITE_PLANNING_HORIZON,
    maxPlanningHorizon: e.FLEXSITE_MAX_PLANNING_HORIZON,
    socMaxAgeSteps: e.FLEXSITE_SOC_MAX_AGE_STEPS,
    instantStaleMs: e.FLEXSITE_INSTANT_STALE_AFTER,
    jobCacheTtlS: e.FLEXSITE_JOB_CACHE_TTL,
    planningTtlMs: e.FLEXSITE_PLANNING_TTL,
    jobTtlMs: e.FLEXSITE_JOB_TTL,
    limits: {
      automationMinIntervalMs: e.FLEXSITE_AUTOMATION_MIN_INTERVAL,
      automationsPerAsset: e.FLEXSITE_AUTOMATIONS_PER_ASSET,
      automationsPerAccount: e.FLEXSITE_AUTOMATIONS_PER_ACCOUNT,
      maxForecastMs: e.FLEXSITE_MAX_FORECAST_DURATION,
      maxForecastCycles: e.FLEXSITE_MAX_FORECAST_CYCLES,
      tariffsPerAccount: e.FLEXSITE_TARIFFS_PER_ACCOUNT,
      tariffMinResolutionMs: e.FLEXSITE_TARIFF_MIN_RESOLUTION,
      priceConnectorsPerAccount: e.FLEXSITE_PRICE_CONNECTORS_PER_ACCOUNT,
    },
    allowDataOverwrite: e.FLEXSITE_ALLOW_DATA_OVERWRITE,
    fallbackRedirect: e.FLEXSITE_FALLBACK_REDIRECT,
    apiCompat: e.FLEXSITE_API_COMPAT,
    workerThreads: e.FLEXSITE_WORKER_THREADS,
    workerIdleMs: e.FLEXSITE_WORKER_IDLE,
    hostsAndAuthStart: e.FLEXSITE_HOSTS_AND_AUTH_START,
    legacyApi: e.FLEXSITE_LEGACY_API,
    sunsetDate: e.FLEXSITE_API_SUNSET_DATE,
    sunsetLink: e.FLEXSITE_API_SUNSET_LINK,
    schedulerPluginsDir: e.FLEXSITE_SCHEDULER_PLUGINS === null ? null : path.resolve(e.FLEXSITE_SCHEDULER_PLUGINS),
    publicUrl: e.FLEXSITE_PUBLIC_URL,
    entsoe: { url: e.FLEXSITE_ENTSOE_URL, token: e.FLEXSITE_ENTSOE_TOKEN },
    mqtt: mqttSettings(e),
  };
}

function mqttSettings(e: z.output<typeof schema>): MqttSettings {
  const clientId = e.FLEXSITE_MQTT_CLIENT_ID;
  if (e.FLEXSITE_MQTT_URL) {
    return { mode: 'external', url: e.FLEXSITE_MQTT_URL, username: e.FLEXSITE_MQTT_USERNAME, password: e.FLEXSITE_MQTT_PASSWORD, clientId };
  }
  if (e.FLEXSITE_MQTT === 'embedded') return { mode: 'embedded', host: e.FLEXSITE_MQTT_HOST, port: e.FLEXSITE_MQTT_PORT, clientId };
  return { mode: 'off' };
}

/** A configuration that cannot be used; `problems` holds one line per bad setting. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}
