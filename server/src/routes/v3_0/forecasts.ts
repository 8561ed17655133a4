import type { Knex } from 'knex';
import { DateTime } from 'luxon';
import { z } from 'zod';
import { forecastTrigger } from '../../contracts/forecasts.ts';
import { triggerForecast } from '../../commands/triggerForecast.ts';
import { rejected } from '../../errors.ts';
import type { ForecastJobResult } from '../../contracts/responses.ts';
import type { AppContext } from '../../http/context.ts';
import { route } from '../../http/routes.ts';
import * as wire from '../../contracts/responses.ts';
import { formatDurationHours } from '../../domain/time.ts';
import { mostRecentBeliefs } from '../../store/beliefs.ts';
import { getForecastModel } from '../../store/forecastModels.ts';
import { BACKTEST_LEAD_DAYS } from '../../../../worker/src/tasks.ts';
import { idParams, sensorById } from '../load.ts';

const unprocessableJob = (message: string) => rejected(422, 'UNPROCESSABLE_ENTITY', message);

/**
 * The job of the path, checked to be a forecast of the path's sensor. A job of another sensor
 * answers as an unknown one: naming its sensor would tell another account's sensor ids.
 */
async function forecastJob(ctx: AppContext, jobId: string, sensorId: number) {
  const job = await ctx.services.jobs.get(jobId);
  if (!job || job.queue !== 'forecasting' || job.sensorId !== sensorId) throw unprocessableJob(`Job ${jobId} not found.`);
  return job;
}

/** Why a stored method choice has no backtest: it was made before there was enough history (the job's result says how much). */
const NO_BACKTEST =
  `Chosen without a backtest: the sensor had too little history. Choosing the method by backtest needs ` +
  `${BACKTEST_LEAD_DAYS} days of history before the earliest origin plus the forecast's horizon (10 days for a 48-hour forecast).`;

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
    // Read here; the command asks to write it.
    load: async ({ db, params }) => ({ sensor: await sensorById(db, params.id, 'read') }),
    async command({ context, principal, body, loaded: { sensor } }) {
      const { job, note } = await triggerForecast(context, principal, { sensor, trigger: body });
      return {
        job: job.id,
        forecast: job.id,
        status: 'ACCEPTED',
        message: `Forecasting job has been queued.${note ? ` ${note}` : ''}`,
        'job-url': `/api/v3_0/jobs/${job.id}`,
        'results-url': `/api/v3_0/sensors/${sensor.id}/forecasts/${job.id}`,
      };
    },
    response: {
      status: 202,
      schema: wire.forecastTriggerAnswer,
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
