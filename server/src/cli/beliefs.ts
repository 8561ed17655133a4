import fs from 'node:fs/promises';
import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { DateTime } from 'luxon';
import { readSensorData } from '../queries/readSensorData.ts';
import { storeSensorData } from '../commands/storeSensorData.ts';
import { csvEvents, parseBeliefsCsv } from '../domain/beliefsCsv.ts';
import type { BeliefTiming } from '../domain/sensorData.ts';
import { formatDurationHours, formatStart } from '../domain/time.ts';
import { isValidUnit } from '../domain/units.ts';
import { ReplacementError } from '../store/beliefs.ts';
import { getSource, type SourceProps } from '../store/sources.ts';
import { CliError, OPERATOR, type CliContext } from './context.ts';
import { duration, sensorCommand, sensorOf, time } from './options.ts';

/** An existing source by id, or a source of type `CLI script` by name. */
async function sourceOf(cli: CliContext, text: string): Promise<SourceProps> {
  if (!/^\d+$/.test(text)) return { name: text, type: 'CLI script' };
  const s = await getSource(await cli.db(), Number(text));
  if (!s) throw new CliError(`data source ${text} not found`);
  return { name: s.name, type: s.type, model: s.model, version: s.version, userId: s.user_id, accountId: s.account_id };
}

interface AddOptions {
  sensor: number;
  unit?: string;
  source: string;
  horizon?: number;
  beliefTime?: DateTime;
}

interface ShowOptions {
  sensor: number;
  start: DateTime;
  duration: number;
  resolution?: number;
  unit?: string;
}

/** `add beliefs --sensor ID FILE.csv`, `show beliefs --sensor ID --start … --duration …`. */
export function registerBeliefCommands(program: Command, cli: CliContext): void {
  sensorCommand(program, 'add', 'beliefs', 'load sensor data from a CSV file: event start, value and optionally belief time per line')
    .argument('<file>', 'the CSV file; datetimes without an offset are in the sensor time zone')
    .option('--unit <unit>', 'unit of the values (default: the sensor unit)')
    .option('--source <source>', 'id of an existing data source, or a name for a source of type "CLI script"', 'Flexsite CLI')
    .option('--horizon <duration>', 'the values were known this long before each event ended (e.g. PT0H for measurements)', duration)
    .option('--belief-time <datetime>', 'the values were known at this time (default: a belief-time column, else now)', time)
    .action(async (file: string, o: AddOptions) => {
      if (o.horizon !== undefined && o.beliefTime) throw new CliError('give --horizon or --belief-time, not both');
      const sensor = await sensorOf(cli, o.sensor);
      const unit = o.unit ?? sensor.unit;
      if (!isValidUnit(unit)) throw new CliError(`Unit '${unit}' cannot be handled.`);
      const text = await fs.readFile(file, 'utf8').catch((err: Error) => {
        throw new CliError(`cannot read ${file}: ${err.message}`);
      });
      const parsed = parseBeliefsCsv(text, sensor.timezone);
      if ('error' in parsed) throw new CliError(`${file}: ${parsed.error}`);
      // A belief time given on the command line wins over the file's column.
      const explicit = o.beliefTime !== undefined || o.horizon !== undefined;
      const rows = explicit ? parsed.rows.map((r) => ({ ...r, beliefTimeMs: undefined })) : parsed.rows;
      const timing: BeliefTiming = o.beliefTime
        ? { priorMs: o.beliefTime.toMillis() }
        : o.horizon !== undefined
          ? { horizonMs: o.horizon }
          : { nowMs: Date.now() };
      const built = csvEvents(sensor, rows, unit, timing);
      if ('problems' in built) throw new CliError(Object.values(built.problems).flat().join(' '));

      // On stderr, and only when it is a terminal: stdout stays clean for --json.
      const bar = new SingleBar({ format: 'beliefs |{bar}| {value}/{total}' }, Presets.shades_classic);
      bar.start(built.events.length, 0);
      try {
        const result = await storeSensorData(await cli.commands(), OPERATOR, {
          uploads: [{ sensorId: sensor.id, eventResolutionMs: sensor.event_resolution_ms, events: built.events }],
          loaded: [sensor],
          source: await sourceOf(cli, o.source),
          onProgress: (done) => bar.update(done),
        });
        bar.stop();
        const summary = {
          sensor_id: sensor.id,
          source_id: result.sourceId,
          inserted: result.inserted,
          unchanged: result.unchanged,
          replaced: result.replaced,
        };
        cli.print(
          summary,
          `Stored ${result.inserted} beliefs on sensor ${sensor.id} (${result.unchanged} unchanged, ${result.replaced} replaced) as source ${result.sourceId}`,
        );
      } catch (err) {
        bar.stop();
        if (err instanceof ReplacementError) {
          throw new CliError(
            `${err.count} values would replace stored ones with the same belief time; nothing was stored (FLEXSITE_ALLOW_DATA_OVERWRITE=1 allows it)`,
          );
        }
        throw err;
      }
    });

  sensorCommand(program, 'show', 'beliefs', "show a sensor's data: the most recent value per event, one per step")
    .requiredOption('--start <datetime>', 'start of the window, with a UTC offset', time)
    .requiredOption('--duration <duration>', 'length of the window, e.g. P1D', duration)
    .option('--resolution <duration>', 'step of the values (default: the sensor resolution)', duration)
    .option('--unit <unit>', 'unit of the values (default: the sensor unit)')
    .action(async (o: ShowOptions) => {
      const sensor = await sensorOf(cli, o.sensor);
      const unit = o.unit ?? sensor.unit;
      if (!isValidUnit(unit)) throw new CliError(`Unit '${unit}' cannot be handled.`);
      if (o.resolution !== undefined && o.resolution <= 0) throw new CliError('the resolution must be positive');
      const data = await readSensorData(await cli.db(), sensor, {
        startMs: o.start.toMillis(),
        durationMs: o.duration,
        unit,
        stepMs: o.resolution,
      });
      if ('problems' in data) throw new CliError(Object.values(data.problems).flat().join(' '));
      const result = {
        sensor_id: sensor.id,
        values: data.values,
        start: formatStart(o.start),
        duration: formatDurationHours(o.duration),
        unit,
        resolution: formatDurationHours(data.resolutionMs),
      };
      const lines = data.values.map((v, i) => {
        const at = DateTime.fromMillis(o.start.toMillis() + i * data.stepMs, { zone: sensor.timezone });
        return `${at.toISO({ suppressMilliseconds: true })}  ${v ?? '-'}`;
      });
      cli.print(result, [`sensor ${sensor.id} "${sensor.name}" in ${unit} (${sensor.timezone})`, ...lines].join('\n'));
    });
}
