import type { Command } from 'commander';
import type { z } from 'zod';
import { automationChanges, automationLimitProblem, automationReferences, newAutomation, presentAutomation } from '../automations/wire.ts';
import { automationCreate, automationPatch } from '../contracts/automations.ts';
import { fieldMessages } from '../http/validate.ts';
import { can } from '../policies/access.ts';
import { assetAccess, firstRefused } from '../policies/references.ts';
import { getAsset } from '../store/assets.ts';
import * as store from '../store/automations.ts';
import { getUser } from '../store/users.ts';
import { CliError, type CliContext } from './context.ts';
import { group, int, list } from './options.ts';

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

/**
 * Refuses what the automation's owner could not do through the API: change the asset and write
 * into the sensors it forecasts and schedules, because its runs act with the owner's rights.
 */
async function assertOwnerMay(cli: CliContext, ownerId: number | null, assetId: number, body: Parameters<typeof automationReferences>[0]) {
  const db = await cli.db();
  const owner = ownerId === null ? undefined : await getUser(db, ownerId);
  if (!owner?.active) throw new CliError(`user ${ownerId} not found or inactive; automations run with an active user's rights`);
  const asset = await getAsset(db, assetId);
  if (!asset) throw new CliError(`asset ${assetId} not found`);
  if (!can(owner, 'update', await assetAccess(db, asset.account_id))) {
    throw new CliError(`user ${owner.id} may not change asset ${asset.id}`);
  }
  // The runs act for the asset's account too, which must be able to use what they name.
  const refused = await firstRefused(db, owner, automationReferences(body), undefined, asset.account_id);
  if (refused)
    throw new CliError(
      `user ${owner.id} or account ${asset.account_id ?? 'public'} may not ${refused.use} sensor ${refused.id} (${refused.field})`,
    );
}

/** Refuses, as the API does, an automation beyond the limits on what one account may start. */
async function withinLimits(
  cli: CliContext,
  fields: { cron: string; timezone: string; horizon: string },
  assetId: number,
  adding: boolean,
) {
  const db = await cli.db();
  const problem = await automationLimitProblem(db, cli.config.limits, fields, (await getAsset(db, assetId))!, adding);
  if (problem) throw new CliError(`${problem.field === '_schema' ? '' : `--${problem.field}: `}${problem.message}`);
}

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
    await assertOwnerMay(cli, o.owner, o.asset, body);
    const db = await cli.db();
    const props = await newAutomation(db, body);
    await withinLimits(cli, props, o.asset, true);
    const created = presentAutomation(await db.transaction((trx) => store.createAutomation(trx, o.asset, o.owner, props, Date.now())));
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
    await assertOwnerMay(cli, automation.ownerId, automation.assetId, body);
    const fields = {
      cron: body.cron ?? automation.cron,
      timezone: body.timezone ?? automation.timezone,
      horizon: body.horizon ?? automation.horizon,
    };
    await withinLimits(cli, fields, automation.assetId, false);
    const edited = presentAutomation(await db.transaction((trx) => store.updateAutomation(trx, o.id, automationChanges(body))));
    cli.print(edited, `Changed ${describe(edited)}`);
  });
}
