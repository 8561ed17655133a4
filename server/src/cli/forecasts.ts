import { Presets, SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import type { DateTime } from 'luxon';
import { BACKTEST_LEAD_DAYS } from '../../../worker/src/tasks.ts';
import { forecastSensor, historyNote } from '../forecasting/forecastJob.ts';
import { createWorkerPool } from '../workers/workerPool.ts';
import { systemClock } from '../clock.ts';
import { getForecastModel } from '../store/forecastModels.ts';
import { principalRef } from '../policies/principal.ts';
import { CliError, OPERATOR, type CliContext } from './context.ts';
import { duration, int, list, sensorCommand, sensorOf, table, time } from './options.ts';

interface AddOptions {
  sensor: number;
  from: DateTime;
  to: DateTime;
  maxHorizon: number;
  regressors: number[];
}

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;
const figure = (x: number) => (Number.isFinite(x) ? x.toPrecision(4) : '-');

/** `add forecasts --sensor N --from … --to …`, `show backtest --sensor N`. */
export function registerForecastCommands(program: Command, cli: CliContext): void {
  sensorCommand(
    program,
    'add',
    'forecasts',
    'forecast a sensor over a window, as known at the start of each cycle, and store the forecasts as beliefs',
    'id of the sensor to forecast',
  )
    .requiredOption('--from <datetime>', 'start of the window, with a UTC offset', time)
    .requiredOption('--to <datetime>', 'end of the window, with a UTC offset', time)
    .option('--max-horizon <duration>', 'longest horizon of one forecast: the window is forecast in cycles this long', duration, 86_400_000)
    .option('--regressors <ids>', 'ids of regressor sensors, comma-separated', (v) => list(v).map(int), [])
    .action(async (o: AddOptions) => {
      const sensor = await sensorOf(cli, o.sensor);
      if (o.to <= o.from) throw new CliError('--to must be after --from');
      for (const id of o.regressors) await sensorOf(cli, id);
      const pool = createWorkerPool(1, cli.config.workerIdleMs);
      // On stderr: stdout stays clean for --json.
      const bar = new SingleBar({ format: 'forecasts |{bar}| {value}/{total} cycles' }, Presets.shades_classic);
      try {
        bar.start(Math.ceil((o.to.toMillis() - o.from.toMillis()) / o.maxHorizon), 0);
        const made = await forecastSensor(
          await cli.db(),
          pool,
          {
            sensorId: sensor.id,
            principal: principalRef(OPERATOR),
            startMs: o.from.toMillis(),
            endMs: o.to.toMillis(),
            maxHorizonMs: o.maxHorizon,
            regressorIds: o.regressors,
          },
          { afterCycle: (done) => bar.update(done) },
          systemClock,
        );
        bar.stop();
        const last = made.cycles[made.cycles.length - 1].outcome;
        const summary = {
          sensor_id: sensor.id,
          data_source_id: made.sourceId,
          cycles: made.cycles.length,
          values: made.cycles.reduce((n, c) => n + c.outcome.values.filter((v) => v !== null).length, 0),
          method: last.method,
          skill: last.backtest?.skill ?? null,
        };
        const note = historyNote(sensor.id, sensor.event_resolution_ms, last, false);
        const skill = last.backtest ? `skill ${percent(last.backtest.skill)} against ${last.backtest.baseline}` : 'no backtest';
        cli.print(
          { ...summary, ...(note ? { message: note } : {}) },
          `Forecast sensor ${sensor.id} in ${summary.cycles} cycles with ${summary.method} (${skill}) as source ${made.sourceId}` +
            (note ? `\n${note}` : ''),
        );
      } finally {
        bar.stop();
        await pool.destroy();
      }
    });

  sensorCommand(
    program,
    'show',
    'backtest',
    "show how a sensor's forecasting method was chosen: errors per method and, per horizon, against seasonal-naive",
  ).action(async (o: { sensor: number }) => {
    const sensor = await sensorOf(cli, o.sensor);
    const model = await getForecastModel(await cli.db(), sensor.id);
    if (!model) throw new CliError(`sensor ${sensor.id} has not been forecast yet; run "add forecasts" first`);
    const b = model.backtest;
    if (!b) {
      cli.print(
        { sensor_id: sensor.id, method: model.method, backtest: null },
        `sensor ${sensor.id}: ${model.method}, chosen without a backtest: too little history (choosing by backtest needs ` +
          `${BACKTEST_LEAD_DAYS} days of history before the earliest origin plus the horizon, 9 days for daily cycles)`,
      );
      return;
    }
    const horizons = b.perHorizon.map((h) => ({
      horizon: `${h.fromH}–${h.toH ?? '…'} h`,
      mae: figure(h.mae),
      rmse: figure(h.rmse),
      baseline_mae: figure(h.baselineMae),
      skill: percent(h.skill),
    }));
    const methods = Object.entries(b.methods).map(([name, s]) => ({ method: name, mae: figure(s!.mae), rmse: figure(s!.rmse) }));
    cli.print(
      { sensor_id: sensor.id, method: model.method, data_source_id: model.sourceId, backtest: b },
      [
        `sensor ${sensor.id} "${sensor.name}" (${sensor.unit}): ${b.chosen} chosen over ${b.origins} daily origins, skill ${percent(b.skill)} against ${b.baseline}`,
        '',
        table(methods, ['method', 'mae', 'rmse']),
        '',
        table(horizons, ['horizon', 'mae', 'rmse', 'baseline_mae', 'skill']),
      ].join('\n'),
    );
  });
}
