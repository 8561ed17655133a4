import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import Koa from 'koa';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import { dataFolder } from './dataFolder.ts';
import { openReaders, openStore, migrate, storeTarget } from './db/connection.ts';
import { dialectFor } from './db/dialect.ts';
import { AppError, httpError, malformedJson } from './errors.ts';
import { speaks10, versionHeaders } from './http/compat.ts';
import type { Services } from './http/context.ts';
import { errorAnswer } from './http/errorAnswer.ts';
import { checkJsonBody, parseJsonText } from './http/jsonBody.ts';
import { createLoginThrottle } from './http/loginThrottle.ts';
import { allowedMethods, mount } from './http/routes.ts';
import { defaultUiDir, staticUi } from './http/staticUi.ts';
import { openLogFile } from './logFile.ts';
import { createPasswordPool } from './workers/passwordPool.ts';
import { createLogger } from './logger.ts';
import { apiRoutes } from './routes/api.ts';
import { legacyApi } from './routes/legacy/index.ts';
import { mountSunset } from './routes/sunset.ts';
import { V3_PREFIX, v3Routes } from './routes/v3_0/index.ts';
import { isQueueName, type FlexsiteJobs } from './contracts/jobs.ts';
import { SPARE_SLOTS } from './jobs/jobQueue.ts';
import { LocalJobQueue } from './jobs/localJobQueue.ts';
import type { RedisJobQueue } from './jobs/redisJobQueue.ts';
import { openRedis, redisNamespace } from './redis.ts';
import { AutomationClock } from './automations/clock.ts';
import { systemClock, type Clock } from './clock.ts';
import { Attention } from './attention/attention.ts';
import { WebhookOutbox } from './attention/webhookOutbox.ts';
import { TariffWriter } from './tariffs/tariffWriter.ts';
import { ToyPriceClock } from './tariffs/toyPriceClock.ts';
import { AutomationRuns } from './automations/runAutomation.ts';
import { forecastingHandler } from './forecasting/forecastJob.ts';
import { batteryReplayHandler } from './queries/batteryReplayJob.ts';
import { schedulingHandler } from './scheduling/runJob.ts';
import { createWorkerPool, type WorkerPool } from './workers/workerPool.ts';
import type { Knex } from 'knex';
import { findSchedulerPlugins } from './workers/pluginFolder.ts';
import { warmMainThread, warmRequestPath } from './warmStart.ts';
import type { MqttBridge } from './mqtt/bridge.ts';

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  /** Queues automation runs when due; tests tick it with a clock of their own. */
  automations: AutomationClock;
  /** Raises notifications; tests run its stale-sensor check at a time of their own. */
  attention: Attention;
  /** Posts queued notifications to webhooks; tests tick it at a time of their own. */
  webhooks: WebhookOutbox;
  /** Writes tariffs ahead as prices; tests tick it at a time of their own. */
  tariffs: TariffWriter;
  /** Keeps the toy account's prices ahead of the clock; tests tick it at a time of their own. */
  toyPrices: ToyPriceClock;
  /** Devices on the LAN over MQTT, when switched on. */
  mqtt: MqttBridge | undefined;
  close(): Promise<void>;
}

const notFoundMessage =
  'The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.';

/**
 * Builds the Koa application over the given services.
 * @param services store, settings, logger, job queue and login guards.
 * @returns the Koa app.
 */
export function createApp(services: Services): Koa {
  const app = new Koa();
  app.proxy = false;
  Object.assign(app.context, { services });

  app.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw httpError(404, notFoundMessage);
    } catch (err) {
      const e = errorAnswer(err instanceof AppError ? err : toAppError(err, services.log, ctx.method, ctx.path));
      ctx.status = e.status;
      ctx.set(e.headers);
      ctx.body = e.body;
    }
    const ms = Math.round((performance.now() - started) * 10) / 10;
    services.log.info({ method: ctx.method, path: ctx.path, status: ctx.status, ms }, 'request');
    // Clients decode every answer as JSON, 204s included; Koa strips Content-Type from empty
    // statuses, so those are written by hand.
    if (ctx.status === 204) {
      ctx.respond = false;
      ctx.res.writeHead(204, { 'Content-Type': 'application/json' });
      ctx.res.end();
    }
  });

  app.use(versionHeaders(services.config));

  // A NUL in the address (`/jobs/%00`) names nothing, and PostgreSQL cannot even compare it.
  app.use(async (ctx, next) => {
    if (/%00/.test(ctx.url)) throw malformedJson();
    await next();
  });

  app.use(
    bodyParser({
      enableTypes: ['json'],
      // DELETE /sensors/<id>/data (FlexMeasures 1.0) takes an optional JSON body.
      parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE'],
      // Devices often post JSON without a content type; anything but a form upload is read as JSON.
      detectJSON: (ctx) => !ctx.is('multipart/form-data') && !ctx.is('application/x-www-form-urlencoded'),
      jsonLimit: '64mb',
      encoding: 'utf-8',
      jsonStrict: false,
      onError: (err, ctx) => {
        if ((err as { status?: number }).status === 413) {
          throw httpError(413, 'The data value transmitted exceeds the capacity limit.');
        }
        // co-body keeps the raw text on a parse error: it may be Python's NaN or Infinity.
        const raw = (err as { body?: unknown }).body;
        if (typeof raw !== 'string') throw malformedJson();
        ctx.request.body = parseJsonText(raw);
      },
    }),
  );

  // Clients send `Content-Type: application/json` with an empty body on every method: no fields.
  app.use(async (ctx, next) => {
    if (ctx.request.body === '') ctx.request.body = {};
    checkJsonBody(ctx.request.body);
    await next();
  });

  // `/api/` is declared with its slash; asked for without it, the reference (Werkzeug) redirects.
  app.use(async (ctx, next) => {
    if (ctx.path !== '/api' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
    const target = `${ctx.protocol}://${ctx.host}/api/${ctx.search}`;
    ctx.status = 308;
    ctx.set('Location', target);
    ctx.body = { message: `Redirecting to ${target}`, status: 308 };
  });

  const api = new Router({ prefix: '/api', strict: true });
  mount(api, apiRoutes);
  mount(api, v3Routes(), V3_PREFIX.slice('/api'.length));
  if (services.config.legacyApi === 'sunset') mountSunset(api, services.config);
  else app.use(legacyApi(services.config));
  app.use(api.routes()).use(allowedMethods(api));
  // The web UI talks to the API above like any other client; it is only served from here.
  app.use(staticUi(defaultUiDir));
  return app;
}

function toAppError(err: unknown, log: Logger, method: string, urlPath: string): AppError {
  const status = (err as { status?: number }).status;
  if (status && status >= 400 && status < 500) {
    return httpError(status, (err as Error).message || 'Bad request');
  }
  log.error({ err, method, path: urlPath }, 'unhandled error');
  return httpError(500, 'An internal error has occurred.');
}

/** Requests Node refuses before Koa sees them (oversized headers, broken HTTP) still get a JSON answer. */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
  const status = tooLarge ? 431 : 400;
  const body = JSON.stringify({
    message: tooLarge
      ? 'One or more header fields exceeds the maximum size.'
      : 'The browser (or proxy) sent a request that this server could not understand.',
    status,
  });
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/**
 * Opens and migrates the store, then serves the API.
 * @param config the settings.
 * @param options a logger to use instead of a new one; whether to warm up (load the solver in a
 *   scheduling thread, meanwhile the first request's code on the main thread), so that the first
 *   schedule costs what later ones do (the entry point does; tests, which start many servers, do
 *   not); a clock instead of the
 *   system's (tests and the site simulation run on a simulated one).
 * @returns the running server.
 */
export async function startServer(config: Config, options: { log?: Logger; warm?: boolean; clock?: Clock } = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  // Read once at start: which plugin names exist is the operator's choice, fixed while the server runs.
  const schedulerPlugins = findSchedulerPlugins(config.schedulerPluginsDir);
  const folder = dataFolder(config.dataDir);
  // One server per data folder: a second one would run the same jobs and fight over the store.
  const target = storeTarget(config);
  const lock = await dialectFor(target).lockStore(folder);
  // A logger handed in (tests, the CLI) stays as it is; the server's own also writes the data folder's log.
  const logFile = options.log || config.logLevel === 'silent' ? undefined : openLogFile(folder.logFile);
  const log = options.log ?? createLogger(config.logLevel, logFile);
  const { db, probe, reader, closeStore } = openConnections(target);
  // An API-only process queues jobs for the workers and runs none itself.
  const pool =
    config.role === 'api' ? undefined : createWorkerPool(config.workerThreads + SPARE_SLOTS, config.workerIdleMs, schedulerPlugins);
  const webhooks = new WebhookOutbox(db, log, clock);
  const attention = new Attention(db, config, log, clock, webhooks);
  const tariffs = new TariffWriter(db, config, log, attention, clock);
  const toyPrices = new ToyPriceClock(db, log, clock);
  const runs = pool && new AutomationRuns(db, pool, config, clock);
  const jobs = await openJobQueue({ db, config, log, clock, pool, attention, runs });
  const redis = await loginRedis(config, log);
  const passwords = createPasswordPool();
  // One process talks to the devices: the one that runs the clock's work. The MQTT client and
  // broker (some 30 MB) are loaded only when MQTT is switched on.
  const mqtt =
    config.mqtt.mode === 'off' || config.role === 'api'
      ? undefined
      : new (await import('./mqtt/bridge.ts')).MqttBridge({ db, reader, config }, config.mqtt, log, clock);
  const automations = new AutomationClock(
    db,
    jobs,
    log,
    clock,
    runs && {
      run: (args, queue, read) => runs.unchanged(args, queue, read),
      succeeded: (account, id) => attention.automationSucceeded(account, id),
    },
  );
  // The clock-driven work, started after the migration and stopped before the devices, the queue and the store.
  const periodic = [automations, attention, webhooks, tariffs, toyPrices];
  const stop = async () => {
    for (const work of periodic) await work.stop();
    await mqtt?.close();
    await jobs.close();
    redis?.client.disconnect();
    await passwords.destroy();
    await closeStore();
    logFile?.close();
    await lock.release();
  };
  const services: Services = {
    db,
    reader,
    probe,
    config,
    log,
    jobs,
    clock,
    passwords,
    loginThrottle: createLoginThrottle(config, log, redis),
    schedulerPlugins,
    mqtt,
    prices: tariffs,
  };
  const handler = createApp(services).callback();
  const server = http.createServer(handler);
  server.on('clientError', answerClientError);
  try {
    await bringUp({ db, pool, jobs, periodic, mqtt, config, handler, server }, options.warm);
  } catch (err) {
    // Leave the folder free for another attempt (the desktop app retries on another port).
    await stop();
    throw err;
  }
  const port = config.role === 'worker' ? 0 : (server.address() as AddressInfo).port;
  return {
    url: serverUrl(config.host, port),
    port,
    services,
    automations,
    attention,
    webhooks,
    tariffs,
    toyPrices,
    mqtt,
    async close() {
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stop();
    },
  };
}

/**
 * Migrates the store, starts the queue and the clock's work, warms up, and opens the port: the
 * order a start needs (the clock's work writes to a migrated store; the port opens last).
 */
async function bringUp(
  parts: {
    db: Knex;
    pool: ReturnType<typeof createWorkerPool> | undefined;
    jobs: Awaited<ReturnType<typeof openJobQueue>>;
    periodic: { start(): void }[];
    mqtt: { open(): Promise<void>; start(): void } | undefined;
    config: Config;
    handler: http.RequestListener;
    server: http.Server;
  },
  warm: boolean | undefined,
): Promise<void> {
  const { db, pool, jobs, periodic, mqtt, config, handler, server } = parts;
  await migrate(db);
  // The solver warms up beside the start, not before it: the port opens without waiting for it.
  if (warm) void pool?.warmUp();
  await jobs.start();
  // API-only processes leave the clock to the workers.
  if (config.role !== 'api') {
    for (const work of periodic) work.start();
    await mqtt?.open();
    mqtt?.start();
  }
  if (warm) {
    warmMainThread();
    await warmRequestPath(handler);
  }
  // A worker-only process serves no HTTP.
  if (config.role !== 'worker') await listen(server, config);
}

/** Where the processes that serve HTTP count login attempts together: Redis, when it is set. */
async function loginRedis(config: Config, log: Logger) {
  if (!config.redisUrl || config.role === 'worker') return undefined;
  return { client: await openRedis(config.redisUrl, log), namespace: redisNamespace(config) };
}

/** The store's connections: the main one, one for readiness, the readers; and how to close them all. */
function openConnections(target: ReturnType<typeof storeTarget>) {
  const db = openStore(target);
  // Readiness gets its own connection: it must not queue behind a job's write transaction on
  // the main one, and SQLite's WAL mode lets it read while that transaction runs.
  const probe = openStore(target);
  const reader = openReaders(target, db);
  const closeStore = async () => {
    await probe.destroy();
    if (reader !== db) await reader.destroy();
    await db.destroy();
  };
  return { db, probe, reader, closeStore };
}

const listen = (server: http.Server, config: Config) =>
  new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, resolve);
  });

/** The address people open: a wildcard host is shown as localhost, an IPv6 one in brackets. */
function serverUrl(host: string, port: number): string {
  const shownHost = host === '0.0.0.0' || host === '::' ? 'localhost' : host;
  return `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;
}

/**
 * The job queue: Redis-backed when configured, in-process otherwise; with the handlers only in a
 * process that runs jobs (one with a worker pool).
 */
async function openJobQueue({
  db,
  config,
  log,
  clock,
  pool,
  attention,
  runs,
}: {
  db: Knex;
  config: Config;
  log: Logger;
  clock: Clock;
  pool: WorkerPool | undefined;
  attention: Attention;
  /** Present with the pool. */
  runs: AutomationRuns | undefined;
}): Promise<LocalJobQueue<FlexsiteJobs> | RedisJobQueue<FlexsiteJobs>> {
  const handlers = pool &&
    runs && {
      scheduling: attention.watchSchedules(schedulingHandler({ db, pool, log, clock, fallback: !speaks10(config) })),
      forecasting: forecastingHandler(db, pool, clock),
      automation: attention.watchAutomations(runs.handler),
      'battery-replay': batteryReplayHandler(db, pool),
    };
  const setup = { db, config, log, isQueue: isQueueName, handlers: handlers ?? null, clock, onClose: async () => pool?.destroy() };
  // BullMQ and the Redis client load only when configured: the appliance and the desktop app never need them.
  return config.redisUrl
    ? new (await import('./jobs/redisJobQueue.ts')).RedisJobQueue<FlexsiteJobs>(setup)
    : new LocalJobQueue<FlexsiteJobs>(setup);
}
