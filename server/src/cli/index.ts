import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config.ts';
import { registerAutomationCommands } from './automations.ts';
import { registerBeliefCommands } from './beliefs.ts';
import { isDomainError } from '../errors.ts';
import { CliError, createCliContext, refusalText, type CliContext } from './context.ts';
import { registerDbCommands } from './db.ts';
import { registerForecastCommands } from './forecasts.ts';
import { registerReplayCommands } from './replay.ts';
import { registerResourceCommands } from './resources.ts';
import { registerTariffCommands } from './tariffs.ts';

/** The command line: `npm run --silent cli -- <command> [--json]`. */
async function main(argv: string[]): Promise<number> {
  const program = new Command('flexsite')
    .description('Flexsite command line: manage accounts, users, assets, sensors, data, forecasts and automations')
    .option('--json', 'print exactly one JSON object as the last line of stdout')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  let cli: CliContext | undefined;
  try {
    // Inside the try: a bad setting is an operator error, reported like the others.
    cli = createCliContext(() => Boolean(program.opts().json));
    registerResourceCommands(program, cli);
    registerDbCommands(program, cli);
    registerBeliefCommands(program, cli);
    registerForecastCommands(program, cli);
    registerAutomationCommands(program, cli);
    registerTariffCommands(program, cli);
    registerReplayCommands(program, cli);
    for (const sub of program.commands) sub.exitOverride();
    await program.parseAsync(argv);
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof CliError || err instanceof ConfigError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 1;
    }
    // The commands shared with the API refuse in the API's terms.
    if (isDomainError(err)) {
      process.stderr.write(`error: ${refusalText(err)}\n`);
      return 1;
    }
    throw err;
  } finally {
    await cli?.close();
  }
}

main(process.argv).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
