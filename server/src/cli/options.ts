import readline from 'node:readline/promises';
import type { Command } from 'commander';
import { parseAwareDateTime, parseIsoDuration } from '../domain/time.ts';
import { getSensor, type SensorInContext } from '../store/sensors.ts';
import { CliError, type CliContext } from './context.ts';

/** Option parsers and output helpers the CLI's command modules share. */

export const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
/** Parses a whole-number option. */
export const int = (v: string) => {
  if (!/^\d+$/.test(v)) throw new CliError(`expected a number, got "${v}"`);
  return Number(v);
};

export function table(rows: Record<string, unknown>[], columns: string[]): string {
  const cells = [columns, ...rows.map((r) => columns.map((c) => String(r[c] ?? '')))];
  const widths = columns.map((_, i) => Math.max(...cells.map((row) => (row as string[])[i].length)));
  return cells.map((row) => (row as string[]).map((c, i) => c.padEnd(widths[i])).join('  ')).join('\n');
}

export async function confirm(question: string, yes: boolean): Promise<void> {
  if (yes) return;
  if (!process.stdin.isTTY) throw new CliError('refusing to delete without confirmation; pass --yes');
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
  const answer = await rl.question(`${question} [y/N] `);
  rl.close();
  if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('aborted');
}

/** The command named `name` under `program`, made when no other module made it yet. */
export const group = (program: Command, name: string, description: string) =>
  program.commands.find((c) => c.name() === name) ?? program.command(name).description(description);

const verbs = { add: 'create things', show: 'show things' };

/** `<verb> <name> --sensor ID`: a command about one sensor, made in its verb's group. */
export const sensorCommand = (
  program: Command,
  verb: keyof typeof verbs,
  name: string,
  description: string,
  sensorHelp = 'id of the sensor',
) => group(program, verb, verbs[verb]).command(name).description(description).requiredOption('--sensor <id>', sensorHelp, int);

export const time = (text: string) => {
  const dt = parseAwareDateTime(text);
  if (typeof dt === 'string') throw new CliError(`"${text}" is not a datetime with a UTC offset`);
  return dt;
};
export const duration = (text: string) => {
  const d = parseIsoDuration(text);
  if (typeof d === 'string' || d.nominal) throw new CliError(`"${text}" is not a fixed ISO 8601 duration such as PT15M`);
  return d.ms;
};

export async function sensorOf(cli: CliContext, id: number): Promise<SensorInContext> {
  const sensor = await getSensor(await cli.db(), id);
  if (!sensor) throw new CliError(`sensor ${id} not found`);
  return sensor;
}
