import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { batteryReplayRequest, type BatteryReplayResult } from '../contracts/batteryReplay.ts';
import { fieldMessages } from '../contracts/validate.ts';
import { resolveBatteryReplay } from '../commands/startBatteryReplay.ts';
import { runReplay } from '../queries/batteryReplayJob.ts';
import { getAsset } from '../store/assets.ts';
import { createWorkerPool } from '../workers/workerPool.ts';
import { CliError, OPERATOR, type CliContext } from './context.ts';
import { group, int, table } from './options.ts';

interface ReplayOptions {
  asset: number;
  size: string[];
  tariff: 'site' | 'time-of-use' | 'day-ahead';
  price?: string;
  period: string[];
  feedIn?: string;
  priceSensor?: number;
  start: string;
  end: string;
}

const collect = (v: string, all: string[]) => [...all, v];

/** A size as `kWh/kW` or `kWh/kW/efficiency` (10/5/0.9). */
function sizeOf(text: string) {
  const [kwh, kw, efficiency] = text.split('/').map(Number);
  if (!(kwh > 0 && kw > 0) || text.split('/').length > 3)
    throw new CliError(`--size "${text}" is not kWh/kW or kWh/kW/efficiency, e.g. 10/5/0.9`);
  return { capacity_kwh: kwh, power_kw: kw, ...(efficiency === undefined ? {} : { efficiency }) };
}

/** A time-of-use period as `HH:mm-HH:mm=price` (00:00-06:00=0.1). */
function periodOf(text: string) {
  const match = /^(\d\d:\d\d)-(\d\d:\d\d)=(-?[\d.]+)$/.exec(text);
  if (!match) throw new CliError(`--period "${text}" is not HH:mm-HH:mm=price, e.g. 00:00-06:00=0.1`);
  return { from: match[1], to: match[2], price: Number(match[3]) };
}

/** The request the API would take, from the options; checked by the same schema. */
function requestOf(o: ReplayOptions) {
  const feedIn = o.feedIn === undefined ? {} : { feed_in_price: Number(o.feedIn) };
  const tariff =
    o.tariff === 'site'
      ? { kind: 'site' }
      : o.tariff === 'time-of-use'
        ? { kind: 'time-of-use', price: Number(o.price), periods: o.period.map(periodOf), ...feedIn }
        : { kind: 'day-ahead', sensor: o.priceSensor, ...feedIn };
  const parsed = batteryReplayRequest.safeParse({ sizes: o.size.map(sizeOf), tariff, start: o.start, end: o.end });
  if (!parsed.success) {
    const fields = Object.entries(fieldMessages(parsed.error.issues)).map(([f, m]) => `${f}: ${JSON.stringify(m)}`);
    throw new CliError(fields.join('; '));
  }
  return parsed.data;
}

/** Progress on stderr (stdout stays clean for --json): a bar on a terminal, else a line every twentieth of the days. */
function progressOf() {
  if (process.stderr.isTTY) {
    const bar = new SingleBar({ format: 'replay |{bar}| {value}/{total} days' }, Presets.shades_classic);
    let started = false;
    return {
      day: (done: number, total: number) => {
        if (!started) bar.start(total, 0);
        started = true;
        bar.update(done);
      },
      stop: () => bar.stop(),
    };
  }
  return {
    day: (done: number, total: number) => {
      if (done === total || done % Math.max(1, Math.round(total / 20)) === 0) process.stderr.write(`replayed ${done}/${total} days\n`);
    },
    stop: () => undefined,
  };
}

const eur = (v: number) => v.toFixed(2);

/** The report for people: per month the cost without and with each size, then each size's savings and cycles. */
export function replayReport(r: BatteryReplayResult): string {
  const names = r.sizes.map((s) => `${s.capacity_kwh} kWh/${s.power_kw} kW`);
  const rows = r.months.map((m, i) => ({
    month: m.month,
    without: eur(m.cost_without),
    ...Object.fromEntries(r.sizes.map((s, j) => [names[j], `${eur(s.months[i].cost_with)} (${s.months[i].cycles} cycles)`])),
  }));
  rows.push({
    month: 'total',
    without: eur(r.cost_without),
    ...Object.fromEntries(r.sizes.map((s, j) => [names[j], `${eur(s.cost_with)} (${s.cycles} cycles)`])),
  });
  const sizes = r.sizes.map(
    (s, j) => `${names[j]}: saves ${eur(s.savings)} EUR, ${eur(s.savings_per_year)} EUR per year, ${s.cycles} cycles`,
  );
  return [
    `Battery replay of asset ${r.asset_id}, ${r.start} to ${r.end} (${r.days} days), cost in EUR without and with each battery:`,
    '',
    table(rows, ['month', 'without', ...names]),
    '',
    ...sizes,
    ...r.warnings.map((w) => `warning: ${w}`),
  ].join('\n');
}

/** `replay battery --asset N --size 10/5 …`: "would a battery pay?" at once, with progress. */
export function registerReplayCommands(program: Command, cli: CliContext): void {
  group(program, 'replay', "replay a site's measured history")
    .command('battery')
    .description("replay a site's measured history with one or a few battery sizes it does not have, and print what each would have saved")
    .requiredOption('--asset <id>', 'id of the site', int)
    .requiredOption('--size <kWh/kW[/efficiency]>', 'a battery size, e.g. 10/5/0.9 (repeat for several)', collect, [])
    .option('--tariff <kind>', "the prices: site (the site's tariff), time-of-use or day-ahead", 'site')
    .option('--price <EUR/kWh>', 'time-of-use: the price outside the periods')
    .option('--period <HH:mm-HH:mm=price>', 'time-of-use: a period and its price, e.g. 00:00-06:00=0.1 (repeat)', collect, [])
    .option('--feed-in <EUR/kWh>', 'what energy sent to the grid earns (day-ahead without it: the day-ahead price)')
    .option('--price-sensor <id>', 'day-ahead: the sensor of prices', int)
    .requiredOption('--start <date>', "the first day replayed, YYYY-MM-DD in the site's zone")
    .requiredOption('--end <date>', 'the day after the last day replayed')
    .action(async (o: ReplayOptions) => {
      const request = requestOf(o);
      const db = await cli.db();
      const asset = await getAsset(db, o.asset);
      if (!asset) throw new CliError(`asset ${o.asset} not found`);
      const args = await resolveBatteryReplay(await cli.commands(), OPERATOR, { asset, request });
      const pool = createWorkerPool(1, cli.config.workerIdleMs);
      const progress = progressOf();
      try {
        const result = await runReplay(db, pool, args, progress.day);
        progress.stop();
        cli.print(result, replayReport(result));
      } finally {
        progress.stop();
        await pool.destroy();
      }
    });
}
