import { ConfigError, loadConfig } from './config.ts';
import { startServer } from './app.ts';
import { createLogger } from './logger.ts';

/** Headless entry point: `npm start`. */
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
  const log = createLogger(config.logLevel);
  const server = await startServer(config, { log });
  log.info({ url: server.url, dataDir: config.dataDir }, `Flexsite listening on ${server.url}`);
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
