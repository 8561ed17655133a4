import type { Knex } from 'knex';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { JobQueue } from '../jobs/jobQueue.ts';
import type { SchedulerPlugins } from '../../../worker/src/tasks.ts';

/**
 * What every command may reach of the server, the same for each caller: the route chain builds it
 * from its services (with its transaction as `db`), the CLI from its own settings, a job from its
 * runtime. A command names the parts it uses (`Pick<CommandContext, 'db' | 'config'>`), so a
 * caller without a queue (the CLI) can still call the commands that queue nothing.
 */
export interface CommandContext<DB extends Knex = Knex> {
  /** The store; the caller's transaction when the command writes. */
  db: DB;
  /** Reads outside that transaction: concurrent readers that never wait for a write (may be `db`). */
  reader: Knex;
  config: Config;
  /** What "now" is: a new automation's first due time, the belief time of a trigger without `prior`. */
  clock: Clock;
  /** Where schedules and forecasts are queued. */
  jobs: Pick<JobQueue, 'enqueue'>;
  /** How passwords are hashed (the server's password threads, or at once on the command line). */
  hash(password: string): Promise<string>;
  /** The operator's scheduler plugins, the only values `custom-scheduler` may take. */
  schedulerPlugins: SchedulerPlugins;
}

/** The parts of the context a command that reads uses; the store always. */
export type Uses<K extends keyof CommandContext = never> = Pick<CommandContext, 'db' | K>;

/** The parts of the context a command that writes uses; its store is the caller's transaction. */
export type Writes<K extends keyof CommandContext = never> = Pick<CommandContext<Knex.Transaction>, 'db' | K>;
