import type { Command } from 'commander';
import type { Knex } from 'knex';
import type { z } from 'zod';
import { presentAutomation } from '../presenters/automations.ts';
import { isQueueName, type FlexsiteJobs } from '../contracts/jobs.ts';
import { JobTable } from '../jobs/jobTable.ts';
import { automationView } from '../queries/automationOutcome.ts';
import { systemClock } from '../clock.ts';
import { createAutomation, updateAutomation } from '../commands/automations.ts';
import { automationCreate, automationPatch } from '../contracts/automations.ts';
import { fieldMessages } from '../contracts/validate.ts';
import { getAsset } from '../store/assets.ts';
import * as store from '../store/automations.ts';
import { CliError, OPERATOR, type CliContext } from './context.ts';
import { group, int, list } from './options.ts';

/**
 * An automation as the API shows it, with its last run's outcome read from the job table (the
 * store every queue records its jobs in) and its sensors named.
 */
export async function shownAutomation(db: Knex, cli: CliContext, automation: store.Automation) {
  const jobs = new JobTable<FlexsiteJobs>(db, cli.config, isQueueName, systemClock);
  return presentAutomation(await automationView(db, jobs, automation), systemClock.now());
}

interface AutomationOptions {
  name?: string;
  cron?: string;
  timezone?: string;
  forecast?: number[];
  schedule?: number;
  horizon?: string;
  enabled?: boolean;
}

/** The options as the API's body, so the same schema checks them. */
const bodyOf = (o: AutomationOptions) => ({
  ...(o.name !== undefined ? { name: o.name } : {}),
  ...(o.cron !== undefined ? { cron: o.cron } : {}),
  ...(o.timezone !== undefined ? { timezone: o.timezone } : {}),
  ...(o.forecast !== undefined ? { forecast_sensor_ids: o.forecast } : {}),
  ...(o.schedule !== undefined ? { schedule_sensor_id: o.schedule } : {}),
  ...(o.horizon !== undefined ? { horizon: o.horizon } : {}),
  ...(o.enabled !== undefined ? { enabled: o.enabled } : {}),
});

function parsed<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const messages = Object.entries(fieldMessages(result.error.issues)).map(([field, m]) => `${field}: ${JSON.stringify(m)}`);
  throw new CliError(messages.join('; '));
}

const ids = (v: string) => list(v).map(int);

const describe = (a: ReturnType<typeof presentAutomation>) =>
  `automation ${a.id} "${a.name}" on asset ${a.asset_id}: ${a.cron} (${a.timezone}), next run ${a.next_run ?? '-'}`;

/** Options of the fields an automation has, for both `add` and `edit`. */
function fieldOptions(command: Command): Command {
  return command
    .option('--cron <expression>', 'when it runs: five cron fields (six with seconds first), in --timezone')
    .option('--timezone <tz>', 'IANA time zone of the cron expression (default: that of the sensor it names)')
    .option('--forecast <ids>', 'ids of sensors to forecast first, comma-separated', ids)
    .option('--schedule <id>', 'id of the power sensor to schedule with its asset flex-model and flex-context', int)
    .option('--horizon <duration>', 'how far ahead each run forecasts and schedules (ISO 8601, default P1D)')
    .option('--enabled <yes|no>', 'whether it runs', (v) => {
      if (!/^(yes|no)$/.test(v)) throw new CliError(`expected yes or no, got "${v}"`);
      return v === 'yes';
    });
}

/** `add automation`, `edit automation`; listing and deleting sit with the other kinds in resources.ts. */
export function registerAutomationCommands(program: Command, cli: CliContext): void {
  fieldOptions(
    group(program, 'add', 'create things')
      .command('automation')
      .description('add a recurring task to an asset: forecast sensors, then schedule one')
      .requiredOption('--asset <id>', 'id of the asset', int)
      .requiredOption('--owner <userId>', 'id of the user whose rights its runs use', int)
      .requiredOption('--name <name>'),
  ).action(async (o: AutomationOptions & { asset: number; owner: number }) => {
    const body = parsed(automationCreate, bodyOf(o));
    const db = await cli.db();
    const asset = await getAsset(db, o.asset);
    if (!asset) throw new CliError(`asset ${o.asset} not found`);
    const created = await shownAutomation(
      db,
      cli,
      await createAutomation(await cli.commands(), OPERATOR, { asset, makerId: o.owner, body }),
    );
    cli.print(created, `Created ${describe(created)}`);
  });

  fieldOptions(
    group(program, 'edit', 'change things')
      .command('automation')
      .description("change an automation's fields")
      .requiredOption('--id <id>', 'id of the automation', int)
      .option('--name <name>'),
  ).action(async (o: AutomationOptions & { id: number }) => {
    const db = await cli.db();
    const automation = await store.getAutomation(db, o.id);
    if (!automation) throw new CliError(`automation ${o.id} not found`);
    const body = parsed(automationPatch, { timezone: automation.timezone, ...bodyOf(o) });
    const asset = (await getAsset(db, automation.assetId))!;
    const edited = await shownAutomation(db, cli, await updateAutomation(await cli.commands(), OPERATOR, { automation, asset, body }));
    cli.print(edited, `Changed ${describe(edited)}`);
  });
}
