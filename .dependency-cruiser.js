// The architecture's rules: which code may import which. `npm run lint:deps` (part of `npm test`)
// checks the tree against them; docs/ARCHITECTURE.md is written from this file, and
// test/structure/boundaries.test.ts holds its layers table to the list below.

/**
 * The layers, from the bottom up. A file may import its own layer and the layers below it, never
 * one above: no import runs back up, and none is excused (an arrow that had to stay would be
 * named here with its reason, as an exception to its layer's rule, and in docs/ARCHITECTURE.md).
 * Paths are relative to the repository: a folder ends with `/`; anything else is one file.
 */
export const layers = [
  {
    name: 'worker',
    paths: ['worker/'],
    what: 'Scheduling, forecasting and password hashing, run in piscina threads. Imports nothing of the server; its door is `worker/src/tasks.ts`',
  },
  {
    name: 'domain',
    paths: ['server/src/domain/', 'server/src/errors.ts', 'server/src/clock.ts'],
    what: "The trade's rules without I/O: units, times, cron, CSV, resampling; the API's errors; the clock",
  },
  {
    name: 'contracts',
    paths: ['server/src/contracts/'],
    what: 'Wire shapes as zod schemas (requests, responses, job arguments and specs) and input validation',
  },
  {
    name: 'runtime',
    paths: [
      'server/src/config.ts',
      'server/src/logger.ts',
      'server/src/logFile.ts',
      'server/src/dataFolder.ts',
      'server/src/redis.ts',
      'server/src/periodic.ts',
      'server/src/outbox.ts',
      'server/src/passwordLinks.ts',
      'server/src/warmStart.ts',
    ],
    what: 'Settings, logging, the data folder, Redis, periodic ticks, the mail outbox, password links, warm start',
  },
  { name: 'db', paths: ['server/src/db/'], what: 'Connections, migrations, and each SQL engine behind `Dialect`' },
  { name: 'store', paths: ['server/src/store/'], what: 'Reads and writes of the store, portable SQL only' },
  { name: 'policies', paths: ['server/src/policies/'], what: 'Who may do what: principals, access rules, references' },
  {
    name: 'presenters',
    paths: ['server/src/presenters/', 'server/src/charts/'],
    what: 'Store records as wire shapes and chart specifications',
  },
  {
    name: 'queue',
    paths: ['server/src/jobs/', 'server/src/workers/'],
    what: 'The job queue (in process or BullMQ); the worker-thread pools and the plugin folder',
  },
  {
    name: 'handlers',
    paths: ['server/src/scheduling/', 'server/src/forecasting/'],
    what: 'Job handlers: resolve inputs, run a worker task, store the outcome as beliefs',
  },
  {
    name: 'queries',
    paths: ['server/src/queries/'],
    what: 'Reads that answer a question across the store: sensor data on a grid, what a site measures now, its key figures',
  },
  {
    name: 'commands',
    paths: ['server/src/commands/'],
    what: 'One command per use case, the only writers, shared by every edge',
  },
  {
    name: 'clockwork',
    paths: ['server/src/automations/', 'server/src/tariffs/', 'server/src/attention/'],
    what: 'Work the clock starts: automation runs, tariff and price writers, notices and webhooks',
  },
  {
    name: 'devices',
    paths: ['server/src/mqtt/'],
    what: 'Devices on the LAN over MQTT: the embedded broker and its access rules, readings in, setpoints out',
  },
  { name: 'http', paths: ['server/src/http/'], what: 'The request chain every route runs through, sign-in, the built UI' },
  { name: 'edges', paths: ['server/src/routes/', 'server/src/cli/'], what: 'The API routes and the command line' },
  {
    name: 'app',
    paths: ['server/src/app.ts', 'server/src/serve.ts'],
    what: 'Puts the server together and starts it',
  },
  { name: 'shell', paths: ['main/'], what: 'The Electron shell around the server' },
];

const escape = (path) => path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A path of `layers` as a regular expression over module paths. */
const pattern = (path) => `^${escape(path)}${path.endsWith('/') ? '' : '$'}`;

/**
 * Who may import the store's writes (`server/src/store/write/`) besides commands/ and the store
 * itself: the machinery's own bookkeeping, which no request, person or device asks for and which
 * has no audit entry. Each with its reason; every other writer goes through a command.
 */
export const writersBesideCommands = [
  // Below commands/ in the layers: a job stores its outcome (beliefs of its source, the schedule's
  // money, a forecast model) after re-checking its principal's current rights.
  ['server/src/scheduling/job/store.ts', 'a schedule job stores its outcome'],
  ['server/src/scheduling/job/planBeliefs.ts', "a schedule's sign convention, stored on its output sensor with it"],
  ['server/src/forecasting/forecastJob.ts', 'a forecast job stores its outcome'],
  // The readings themselves are stored through commands/storeSensorData.ts.
  ['server/src/mqtt/bridge.ts', "a device link's buffered readings and message tallies"],
  ['server/src/mqtt/setpoints.ts', 'the setpoints sent to a device'],
  ['server/src/automations/clock.ts', 'which run of an automation was queued'],
  ['server/src/attention/attention.ts', 'the notices the server raises and ends itself, each queued for its webhook'],
  ['server/src/attention/webhookOutbox.ts', "the webhook outbox's deliveries: done with, or tried again later"],
  ['server/src/tariffs/tariffWriter.ts', "a price connector's last outcome, and the end of its notice"],
];

/**
 * Who writes a table with knex outside the store (`server/src/store/`, and the migrations that
 * shape it), each with its reason. An import rule cannot see a raw write, so
 * test/structure/commands.test.ts reads the code for them and lets only these through.
 */
export const tablesBesideStore = [
  // Above the store in the layers, so it could import store/write; but a job's row is the queue's
  // own state machine (queued, claimed, finished, requeued after a crash), written at each step of
  // running it for whoever queued it, with no person's change to check or audit.
  ['server/src/jobs/jobTable.ts', "the job queue's own table, `job`"],
];

const layerRules = layers.slice(0, -1).map((layer, i) => ({
  name: `layer-${layer.name}`,
  comment: `${layer.name} imports only its own layer and those below it`,
  severity: 'error',
  from: { path: layer.paths.map(pattern) },
  to: { path: layers.slice(i + 1).flatMap((above) => above.paths.map(pattern)) },
}));

export default {
  forbidden: [
    ...layerRules,
    {
      name: 'server-enters-worker-through-tasks',
      comment: 'The server reaches worker code through worker/src/tasks.ts only (the task contract and the pure helpers it hands on)',
      severity: 'error',
      from: { path: '^(server|main)/' },
      to: { path: '^worker/', pathNot: '^worker/src/tasks\\.ts$' },
    },
    {
      name: 'renderer-speaks-http',
      comment: "The UI talks to the server over HTTP; it imports the server's contracts (types and schemas) and nothing else of it",
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^(server|worker|main)/', pathNot: '^server/src/contracts/' },
    },
    {
      name: 'nothing-imports-the-ui',
      comment: 'The server serves the built UI as files; no code imports it',
      severity: 'error',
      from: { path: '^(server|worker|main)/' },
      to: { path: '^renderer/' },
    },
    {
      name: 'commands-are-the-only-writers',
      comment:
        "Only commands/ (and the store itself) import the store's writes, so every write runs a command's checks and leaves its audit entry; the bookkeeping in writersBesideCommands is named with its reason",
      severity: 'error',
      from: { path: '^server/src/', pathNot: ['^server/src/(commands|store)/', ...writersBesideCommands.map(([file]) => pattern(file))] },
      to: { path: '^server/src/store/write/' },
    },
    {
      name: 'migrations-are-fixed',
      comment:
        "A migration's SQL is fixed when written: it imports no code of the project, which may change later (server/src/db/migrations/README.md)",
      severity: 'error',
      from: { path: '^server/src/db/migrations/[0-9]{4}_' },
      to: { path: '^(server|worker|main|renderer)/' },
    },
    {
      name: 'no-circle-across-folders',
      comment: 'Files that import each other in a circle stay inside one folder (a top-level file is a folder of its own)',
      severity: 'error',
      from: { path: '^((server|worker|renderer)/src/[^/]+|main/[^/]+)' },
      to: { circular: true, via: { pathNot: '^$1' } },
    },
  ],
  options: {
    // Type-only imports are arrows too: a type moved up drags its importers' design with it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '/dist/' },
  },
};
