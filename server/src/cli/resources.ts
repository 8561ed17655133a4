import type { Command } from 'commander';
import { timezone } from '../contracts/fields.ts';
import { createAccount, deleteAccount } from '../commands/accounts.ts';
import { createUser, deleteUser, setPassword } from '../commands/users.ts';
import { createToyAccount } from '../commands/toyAccount.ts';
import * as accounts from '../store/accounts.ts';
import { shownAutomation } from './automations.ts';
import { deleteAsset } from '../commands/assets.ts';
import { getAsset, listAssets } from '../store/assets.ts';
import { getAutomation, listAutomations } from '../store/automations.ts';
import { deleteAutomation } from '../commands/automations.ts';
import { deleteSensor } from '../commands/sensors.ts';
import { deleteTariff } from '../commands/tariffs.ts';
import { listTariffs } from '../store/tariffs.ts';
import { tariffColumns, tariffRow } from './tariffs.ts';
import { getSensor, listSensors } from '../store/sensors.ts';
import { signConvention } from '../queries/loadSign.ts';
import * as users from '../store/users.ts';
import { CliError, OPERATOR, type CliContext } from './context.ts';
import { confirm, group, int, list, table } from './options.ts';

/** `add account|user|toy-account`, `list …`, `delete …`, `set password`. */
export function registerResourceCommands(program: Command, cli: CliContext): void {
  registerAdd(program, cli);
  registerList(program, cli);
  registerDelete(program, cli);
  registerSetPassword(program, cli);
}

function registerAdd(program: Command, cli: CliContext): void {
  const add = group(program, 'add', 'create things');
  add
    .command('account')
    .requiredOption('--name <name>')
    .option('--roles <roles>', 'account roles, comma-separated (Prosumer,Supplier,...)', list, [])
    .option('--consultancy <accountId>', 'id of the consultancy account', int)
    .action(async (o: { name: string; roles: string[]; consultancy?: number }) => {
      const db = await cli.db();
      if (o.consultancy !== undefined && !(await accounts.getAccount(db, o.consultancy))) {
        throw new CliError(`Account ${o.consultancy} not found`);
      }
      if (await db('account').where({ name: o.name }).first()) throw new CliError(`Account "${o.name}" already exists`);
      const account = await cli.write((context) =>
        createAccount(context, OPERATOR, { name: o.name, roles: o.roles, consultancy_account_id: o.consultancy ?? null }),
      );
      cli.print({ ...account, account_roles: o.roles }, `Created account ${account.id} "${account.name}"`);
    });
  add
    .command('user')
    .requiredOption('--email <email>')
    .requiredOption('--username <username>')
    .option('--password <password>', 'the password; a random one is made and printed when left out')
    .requiredOption('--account <accountId>', 'id of the account', int)
    .option('--roles <roles>', 'admin,admin-reader,account-admin,consultant', list, [])
    .option('--timezone <tz>', 'IANA time zone', 'Europe/Amsterdam')
    .option('--inactive', 'create the user switched off')
    .action(
      async (o: {
        email: string;
        username: string;
        password?: string;
        account: number;
        roles: string[];
        timezone: string;
        inactive?: boolean;
      }) => {
        const db = await cli.db();
        if (!/^[^@\s]+@[^@\s]+$/.test(o.email)) throw new CliError(`"${o.email}" is not a valid email address`);
        if (!timezone.safeParse(o.timezone).success) throw new CliError(`Timezone ${o.timezone} doesn't exist.`);
        if (o.password !== undefined && o.password.length < 8) throw new CliError('The password must be at least 8 characters long');
        const known = await users.listRoles(db);
        const roleIds = o.roles.map((name) => {
          const role = known.find((r) => r.name === name);
          if (!role) throw new CliError(`Unknown role "${name}"; known: ${known.map((r) => r.name).join(', ')}`);
          return role.id;
        });
        const { user, password } = await createUser(await cli.commands(), OPERATOR, {
          email: o.email,
          username: o.username,
          password: o.password,
          accountId: o.account,
          roleIds,
          timezone: o.timezone,
          active: !o.inactive,
        });
        const shown = {
          id: user.id,
          email: user.email,
          username: user.username,
          account_id: user.account_id,
          roles: user.roles,
          active: user.active,
        };
        cli.print(
          password === null ? shown : { ...shown, password },
          `Created user ${user.id} <${user.email}>${password === null ? '' : ` with password ${password}`}`,
        );
      },
    );
  add
    .command('toy-account')
    .description('an account with a battery and a public day-ahead price sensor, for trying things out')
    .option('--password <password>', 'password of toy-user@flexmeasures.io', 'toy-password')
    .action(async (o: { password: string }) => {
      const ids = await createToyAccount(await cli.commands(), OPERATOR, { password: o.password });
      cli.print({ ...ids }, `Toy account ready:\n${table([ids as unknown as Record<string, unknown>], Object.keys(ids))}`);
    });
}

function registerList(program: Command, cli: CliContext): void {
  program
    .command('list')
    .argument('<what>', 'accounts, users, assets, sensors, automations or tariffs')
    .option('--asset <id>', 'automations, tariffs: only those of this asset', int)
    .action(async (what: string, o: { asset?: number }) => {
      const db = await cli.db();
      const rows: Record<string, unknown>[] = [];
      let columns: string[];
      if (what === 'accounts') {
        rows.push(...(await accounts.listAccounts(db)).map((a) => ({ ...a })));
        columns = ['id', 'name', 'consultancy_account_id'];
      } else if (what === 'users') {
        rows.push(...(await users.listUsers(db, { includeInactive: true })).map((u) => ({ ...u })));
        columns = ['id', 'email', 'username', 'account_id', 'active', 'roles'];
      } else if (what === 'assets') {
        for (const owner of [...(await accounts.listAccounts(db)).map((a) => a.id), null]) {
          rows.push(...(await listAssets(db, owner)).map((a) => ({ ...a })));
        }
        columns = ['id', 'name', 'generic_asset_type_id', 'account_id', 'parent_asset_id'];
      } else if (what === 'sensors') {
        // A power sensor's sign convention beside its unit, as everywhere its values are shown.
        rows.push(...(await listSensors(db, {})).map((s) => ({ ...s, sign: signConvention(s) })));
        columns = ['id', 'name', 'unit', 'sign', 'event_resolution_ms', 'generic_asset_id', 'timezone'];
      } else if (what === 'tariffs') {
        rows.push(...(await listTariffs(db, { assetId: o.asset })).map(tariffRow));
        columns = tariffColumns;
      } else if (what === 'automations') {
        for (const a of await listAutomations(db, { assetId: o.asset })) {
          const shown = await shownAutomation(db, cli, a);
          // The last run's outcome as one word for the table, beside the whole of it.
          rows.push({ ...shown, outcome: shown.last_outcome?.status ?? '' });
        }
        columns = ['id', 'name', 'asset_id', 'cron', 'timezone', 'enabled', 'last_run', 'outcome', 'next_run'];
      } else {
        throw new CliError(`cannot list "${what}"; choose accounts, users, assets, sensors, automations or tariffs`);
      }
      rows.sort((a, b) => Number(a.id) - Number(b.id));
      cli.print({ [what]: rows }, rows.length ? table(rows, columns) : `no ${what}`);
    });
}

function registerDelete(program: Command, cli: CliContext): void {
  program
    .command('delete')
    .argument('<what>', 'user, account, asset, sensor, automation or tariff')
    .requiredOption('--id <id>', 'the id', int)
    .option('--yes', 'do not ask for confirmation')
    .action(async (what: string, o: { id: number; yes?: boolean }) => {
      const db = await cli.db();
      const targets: Record<string, { find: () => Promise<unknown>; remove: () => Promise<unknown>; note: string }> = {
        user: {
          find: () => users.getUser(db, o.id),
          remove: () => cli.write(async (context) => deleteUser(context, OPERATOR, { target: (await users.getUser(context.db, o.id))! })),
          note: '',
        },
        account: {
          find: () => accounts.getAccount(db, o.id),
          remove: () =>
            cli.write(async (context) => deleteAccount(context, OPERATOR, { account: (await accounts.getAccount(context.db, o.id))! })),
          note: ' with its users, assets, sensors and data',
        },
        asset: {
          find: () => getAsset(db, o.id),
          remove: () => cli.write(async (context) => deleteAsset(context, OPERATOR, { asset: (await getAsset(context.db, o.id))! })),
          note: ' with its sensors and data',
        },
        sensor: {
          find: () => getSensor(db, o.id),
          remove: () => cli.write(async (context) => deleteSensor(context, OPERATOR, { sensor: (await getSensor(context.db, o.id))! })),
          note: ' with its data',
        },
        automation: {
          find: () => getAutomation(db, o.id),
          remove: async () => {
            const automation = (await getAutomation(db, o.id))!;
            await deleteAutomation(await cli.commands(), OPERATOR, { automation, asset: (await getAsset(db, automation.assetId))! });
          },
          note: '',
        },
        tariff: {
          find: async () => (await listTariffs(db)).find((t) => t.id === o.id),
          remove: async () => {
            const { assetId } = (await listTariffs(db)).find((t) => t.id === o.id)!;
            await cli.write(async (context) =>
              deleteTariff(context, OPERATOR, { asset: (await getAsset(context.db, assetId))!, id: o.id }),
            );
          },
          note: ', withdrawing its prices from the start of today',
        },
      };
      const target = targets[what];
      if (!target) throw new CliError(`cannot delete "${what}"; choose user, account, asset, sensor, automation or tariff`);
      if (!(await target.find())) throw new CliError(`${what} ${o.id} not found`);
      await confirm(`Delete ${what} ${o.id}${target.note}?`, Boolean(o.yes));
      await target.remove();
      cli.print({ deleted: what, id: o.id }, `Deleted ${what} ${o.id}`);
    });
}

function registerSetPassword(program: Command, cli: CliContext): void {
  program
    .command('set')
    .argument('<what>', 'password')
    .requiredOption('--email <email>')
    .requiredOption('--password <password>')
    .action(async (what: string, o: { email: string; password: string }) => {
      if (what !== 'password') throw new CliError(`cannot set "${what}"; only "password"`);
      const db = await cli.db();
      const user = await users.getUserWithHashByEmail(db, o.email);
      if (!user) throw new CliError(`User with email '${o.email}' does not exist`);
      await setPassword(await cli.commands(), OPERATOR, { target: user, password: o.password, signOut: true });
      cli.print({ id: user.id, email: user.email }, `Password of ${user.email} set; existing tokens revoked`);
    });
}
