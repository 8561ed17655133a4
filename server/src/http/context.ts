import type Koa from 'koa';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { User } from '../store/users.ts';
import type { JobQueue } from '../jobs/jobQueue.ts';
import type { PasswordPool } from '../workers/passwordPool.ts';
import type { LoginThrottle } from './loginThrottle.ts';
import type { SchedulerPlugins } from '../../../worker/src/tasks.ts';
import type { MqttBridge } from '../mqtt/bridge.ts';
import type { TariffWriter } from '../tariffs/tariffWriter.ts';

/** What every request handler can reach. */
export interface Services {
  db: Knex;
  /** The store for reads outside transactions: concurrent readers that never wait for a write (may be `db`). */
  reader: Knex;
  /** A second connection to the same store, for the readiness check only. */
  probe: Knex;
  config: Config;
  log: Logger;
  jobs: JobQueue;
  /** What "now" is for everything the server acts on (the system's, or a simulated one). */
  clock: Clock;
  passwords: PasswordPool;
  loginThrottle: LoginThrottle;
  /** The operator's scheduler plugins, the only values `custom-scheduler` may take. */
  schedulerPlugins: SchedulerPlugins;
  /** Devices on the LAN, when MQTT is on in this process; told when a link is added or removed, asked for its broker's port. */
  mqtt?: Pick<MqttBridge, 'linksChanged' | 'brokerPort'>;
  /** Writes a price connector's prices at once, when it is stored. */
  prices: Pick<TariffWriter, 'writeConnectorNow'>;
}

export interface AppState {
  user?: User;
}

export type AppContext = Koa.ParameterizedContext<AppState, { services: Services; params: Record<string, string> }>;
