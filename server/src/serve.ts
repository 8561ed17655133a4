import { ConfigError, loadConfig } from './config.ts';
import { startServer } from './app.ts';
import { StoreBusyError } from './db/errors.ts';
import { PluginFolderError } from './workers/pluginFolder.ts';

/** Headless entry point: `npm start` and `npm run worker`, and what the systemd units run. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      process.exit(2);
    }
    throw err;
  }
  let server;
  try {
    // Logs go to stdout and to logs/flexsite.log in the data folder.
    server = await startServer(config, { warm: true });
  } catch (err) {
    if (err instanceof StoreBusyError || err instanceof PluginFolderError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
  const { log } = server.services;
  if (config.role === 'worker') log.info({ dataDir: config.dataDir }, 'Flexsite worker running jobs');
  else log.info({ url: server.url, dataDir: config.dataDir, role: config.role }, `Flexsite listening on ${server.url}`);
  // A crash is logged with its stack before the process ends; the supervisor (systemd) restarts it,
  // and interrupted jobs are resumed then.
  const crash = (err: unknown) => {
    log.fatal({ err }, 'crashed');
    process.exit(1);
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await server.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

void main();
