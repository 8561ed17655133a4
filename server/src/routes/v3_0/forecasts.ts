import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { z } from 'zod';
import { forecastTrigger } from '../../contracts/forecasts.ts';
import { fieldError, rejected } from '../../errors.ts';
import {
  forecastReferences,
  historyDays,
  MIN_HISTORY_DAYS,
  minimumHistoryText,
  type ForecastJobArgs,
  type ForecastJobResult,
} from '../../forecasting/forecastJob.ts';
import type { AppContext } from '../../http/context.ts';
import { route } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import { formatDurationHours, formatResolution } from '../../domain/time.ts';
import { mostRecentBeliefs } from '../../store/beliefs.ts';
import { getForecastModel } from '../../store/forecastModels.ts';
import { BACKTEST_LEAD_DAYS } from '../../../../worker/src/forecasting/backtest.ts';
import { idParams, sensorById } from '../load.ts';

const DAY_MS = 86_400_000;
const DEFAULT_WINDOW_MS = 2 * DAY_MS;

const unprocessableJob = (message: string) => rejected(422, 'UNPROCESSABLE_ENTITY', message);

/** The job of the path, checked to be a forecast of the path's sensor. */
async function forecastJob(ctx: AppContext, jobId: string, sensorId: number) {
  const job = await ctx.services.jobs.get(jobId);
  if (!job || job.queue !== 'forecasting') throw unprocessableJob(`Job ${jobId} not found.`);
  if (job.sensorId !== sensorId) {
    throw unprocessableJob(`Sensor ID mismatch: job ${job.id} is for sensor ${job.sensorId}, not sensor ${sensorId}.`);
  }
  return job;
}

/** Why a stored method choice has no backtest: it was made before there was enough history (the job's result says how much). */
const NO_BACKTEST =
  `Chosen without a backtest: the sensor had too little history. Choosing the method by backtest needs ` +
  `${BACKTEST_LEAD_DAYS} days of history before the earliest origin plus the forecast's horizon (10 days for a 48-hour forecast).`;

/** A warning for the trigger's answer when the history is too short to choose the method by backtest. */
function historyNoteAtTrigger(sensorId: number, history: number, horizonMs: number): string | null {
  const backtestDays = BACKTEST_LEAD_DAYS + horizonMs / DAY_MS;
  if (history >= backtestDays) return null;
  return (
    `Too little history for a backtest: sensor ${sensorId} has ${Math.round(history * 10) / 10} days of it; ` +
    `${minimumHistoryText(horizonMs)}. The method will be seasonal-naive-day.`
  );
}

/**
 * The job's own values: per cycle, its source's beliefs as of its belief time. A later job covering
 * the same window believes later (or by another method's source), so it is never read.
 */
async function jobBeliefs(db: Knex, sensorId: number, result: ForecastJobResult) {
  // The most recent belief at the job's belief time is the job's own: a value equal to the
  // source's earlier belief was not stored again, so that earlier belief stands for it.
  const perCycle = await Promise.all(
    result.cycles.map((c) =>
      mostRecentBeliefs(db, {
        sensorId,
        startMs: c.start_ms,
        endMs: c.end_ms,
        beliefsBeforeMs: c.belief_time_ms,
        sourceIds: [c.data_source_id ?? result.data_source_id],
      }),
    ),
  );
  return perCycle.flat().sort((a, b) => a.eventStartMs - b.eventStartMs);
}

/** Forecasting (FlexMeasures 1.0 wire): trigger a job, fetch its values, and see how the method was chosen. */
export const forecastRoutes = [
  route({
    method: 'POST',
    path: '/sensors/:id/forecasts/trigger',
    summary: 'Trigger forecasting job for one sensor',
    request: { params: idParams, json: forecastTrigger },
    // Read here; the job's references below ask to write it.
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'read') }),
    check({ ctx, user, body, loaded: { sensor } }): ForecastJobArgs {
      const { maxForecastMs, maxForecastCycles } = ctx.services.config.limits;
      const tooLong = (field: string) =>
        fieldError('json', field, `The forecast window may be at most ${maxForecastMs / 86_400_000} days long.`);
      // Bounded before any date arithmetic, which a huge duration would overflow.
      if (body.duration && body.duration.ms > maxForecastMs) throw tooLong('duration');
      const stepMs = sensor.event_resolution_ms;
      if (!stepMs)
        throw fieldError(
          'path',
          'id',
          `Sensor ${sensor.id} records instantaneous values; only sensors with an event resolution can be forecast.`,
        );
      const startMs = body.start?.toMillis() ?? Math.floor(Date.now() / stepMs) * stepMs;
      const endMs =
        body.end?.toMillis() ??
        (body.duration ? (body.start ?? DateTime.fromMillis(startMs)).plus(body.duration.luxon).toMillis() : startMs + DEFAULT_WINDOW_MS);
      if (endMs <= startMs) throw fieldError('json', body.end ? 'end' : 'duration', 'The forecast window must end after it starts.');
      // A forecast is ex ante by definition: one believed after its events began would be stamped as known before it was.
      if (body.prior && body.prior.toMillis() > startMs)
        throw fieldError('json', 'prior', 'The belief time of a forecast must not be after the start of its window.');
      if (!(endMs - startMs <= maxForecastMs)) throw tooLong(body.end ? 'end' : 'duration');
      // Each cycle is a model fit: one trigger may not hold the job worker for thousands of them.
      const horizonMs = body['max-forecast-horizon']?.ms;
      if (horizonMs && Math.ceil((endMs - startMs) / horizonMs) > maxForecastCycles) {
        throw fieldError(
          'json',
          'max-forecast-horizon',
          `Too short for this window: at most ${maxForecastCycles} forecast cycles per trigger.`,
        );
      }
      if (body['max-forecast-horizon'] && body['max-forecast-horizon'].ms < stepMs) {
        throw fieldError('json', 'max-forecast-horizon', `Must be at least the sensor's resolution (${formatResolution(stepMs)}).`);
      }
      const config = body.config ?? {};
      const regressorIds = [
        ...new Set([
          ...(body.regressors ?? []),
          ...(config.regressors ?? []),
          ...(config['future-regressors'] ?? []),
          ...(config['past-regressors'] ?? []),
        ]),
      ];
      return {
        sensorId: sensor.id,
        ownerId: user.id,
        startMs,
        endMs,
        regressorIds,
        ...(body.prior ? { priorMs: body.prior.toMillis() } : {}),
        ...(body['max-forecast-horizon'] ? { maxHorizonMs: body['max-forecast-horizon'].ms } : {}),
      };
    },
    // The job runs for the sensor's account, which must be able to read the regressors too.
    references: ({ checked, loaded: { sensor } }) => ({ refs: forecastReferences(checked), usableBy: sensor.account_id }),
    async command({ ctx, db, loaded: { sensor }, checked: args }) {
      // What the job will read, as far as it is known now (without `prior`, the job reads at the time it runs).
      const beliefTimeMs = args.priorMs ?? Math.min(Date.now(), args.startMs);
      const horizonMs = Math.min(args.endMs - Math.min(beliefTimeMs, args.startMs), args.maxHorizonMs ?? Infinity);
      const history = await historyDays(db, sensor, args.startMs, beliefTimeMs);
      if (history < MIN_HISTORY_DAYS) {
        throw fieldError(
          'json',
          args.priorMs !== undefined ? 'prior' : 'start',
          `Too little history: sensor ${sensor.id} has ${Math.round(history * 10) / 10} days of it known at ` +
            `${new Date(beliefTimeMs).toISOString()} before the start; ${minimumHistoryText(horizonMs)}.`,
        );
      }
      const short = historyNoteAtTrigger(sensor.id, history, horizonMs);
      const job = await ctx.services.jobs.enqueue('forecasting', args, {
        accountId: sensor.account_id,
        sensorId: sensor.id,
        reuseWithinS: ctx.services.config.jobCacheTtlS,
      });
      return {
        job: job.id,
        forecast: job.id,
        status: 'ACCEPTED',
        message: `Forecasting job has been queued.${short ? ` ${short}` : ''}`,
        'job-url': `/api/v3_0/jobs/${job.id}`,
        'results-url': `/api/v3_0/sensors/${sensor.id}/forecasts/${job.id}`,
      };
    },
    response: {
      status: 202,
      schema: wire.processedAnswer.extend({ job: z.string(), forecast: z.string() }),
      description: 'The job id (`job`, and `forecast` as 1.0 also answers), with the URLs of its status and values',
    },
  }),
  route({
    method: 'GET',
    path: '/sensors/:id/forecasts/backtest',
    summary: 'Get the forecasting method chosen for a sensor and its backtest',
    request: { params: idParams },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'read') }),
    async command({ db, loaded: { sensor } }) {
      const model = await getForecastModel(db, sensor.id);
      if (!model) throw rejected(404, 'UNKNOWN_FORECAST', `Sensor ${sensor.id} has not been forecast yet.`);
      return {
        sensor_id: sensor.id,
        method: model.method,
        data_source_id: model.sourceId,
        chosen_at: new Date(model.updatedAtMs).toISOString(),
        backtest: model.backtest,
        ...(model.backtest ? {} : { message: NO_BACKTEST }),
      };
    },
    response: { schema: wire.forecastBacktest },
  }),
  route({
    method: 'GET',
    path: '/sensors/:id/forecasts/:uuid',
    summary: 'Get forecast for one sensor',
    request: { params: idParams.extend({ uuid: z.string() }) },
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'read') }),
    async command({ ctx, db, params, loaded: { sensor } }) {
      const job = await forecastJob(ctx, params.uuid, sensor.id);
      if (job.status === 'queued' || job.status === 'started') {
        return {
          status: job.status.toUpperCase(),
          message: `Forecasting job is ${job.status === 'queued' ? 'waiting to be processed' : 'in progress'}.`,
        };
      }
      if (job.status === 'failed') throw rejected(422, 'FAILED', `Forecasting job failed with ${job.error}.`);
      const beliefs = job.result ? await jobBeliefs(db, sensor.id, job.result) : [];
      if (!beliefs.length)
        throw rejected(
          400,
          'UNKNOWN_FORECAST',
          'A forecasting job has been processed with your job ID, but the forecast was not found in the database.',
        );
      const first = beliefs[0].eventStartMs;
      const last = beliefs[beliefs.length - 1].eventStartMs;
      return {
        start: DateTime.fromMillis(first, { zone: sensor.timezone }).toISO({ suppressMilliseconds: true })!,
        duration: formatDurationHours(last + sensor.event_resolution_ms - first),
        unit: sensor.unit,
        values: beliefs.map((b) => b.value),
      };
    },
    response: {
      // 202 with the job's state while it runs; the values once it is done.
      status: (r: object) => ('values' in r ? 200 : 202),
      schema: z.union([
        z.looseObject({ start: z.string(), duration: z.string(), unit: z.string(), values: z.array(z.number()) }),
        wire.processedAnswer,
      ]),
    },
  }),
];
