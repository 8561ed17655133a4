import { DateTime } from 'luxon';
import { z } from 'zod';
import { awareDateTime } from '../../contracts/fields.ts';
import * as cockpit from '../../contracts/cockpit.ts';
import { assetKpis, sensorKpis, siteSensors } from '../../queries/assetKpis.ts';
import { energyCsv, energyPeriods, localDate, type EnergyPeriods } from '../../queries/energyPeriods.ts';
import { can } from '../../policies/access.ts';
import { sensorAccess } from '../../policies/references.ts';
import { planAhead } from '../../queries/planAhead.ts';
import { siteNow } from '../../queries/siteNow.ts';
import { fieldError } from '../../errors.ts';
import { route } from '../../http/routes.ts';
import { assetById, idParams } from '../load.ts';

const MAX_KPI_WINDOW_MS = 400 * 86_400_000;

const energyQuery = z.object({
  period: z.enum(['day', 'week', 'month', 'year']).default('day'),
  start: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Must be a date (YYYY-MM-DD).')
    .optional()
    .describe("A date in the site's zone: the period holding it (without it, the one holding now)."),
  format: z.enum(['json', 'csv']).default('json'),
});

const planAheadQuery = z.object({
  hours: z.coerce.number().int().min(1).max(48).default(24).describe('How far ahead of now (1–48 hours).'),
});

const kpiQuery = z.object({
  start: awareDateTime.optional().describe("Without start and end: this month in the site's zone."),
  end: awareDateTime.optional(),
});

/** How the figures count: written once here, shown in the API's description. */
const MONEY_RULES =
  'Each step of a device counts as the plan in force at it: the newest plan made (belief time) at or before the ' +
  "step's start. A plan made later (a Compute now for past steps, a re-run of yesterday) changes no figure of a step " +
  'already begun; steps ahead count as the newest plan made so far says (`ahead`), apart from those begun (`so_far`). ' +
  'Steps planned by the fallback scheduler are counted and marked (`fallback_steps`). Realised figures price the ' +
  "site's measured net grid flow (its grid meter; without one the forecast rest of the site plus the devices' measured " +
  'power, `rest_of_site` says which), against the same rest of the site with batteries idle and EVs charging at once, ' +
  'over the steps measured so far (`measured_from`–`measured_to`). Days and months are in the ' +
  "site's zone; the devices of a day and the rest of the site add up to the day.";

/** The operator's cockpit: what a site's schedules save, and what its sensors say now. */
export const cockpitRoutes = [
  route({
    method: 'GET',
    path: '/assets/:id/kpis',
    summary: "Get the cost of an asset's schedules against doing nothing, planned and realised, per day and month",
    request: { params: idParams, query: kpiQuery },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    check: async ({ ctx, db, query, loaded }) => {
      if (!query.start !== !query.end) throw fieldError('query', query.start ? 'end' : 'start', 'Give both start and end, or neither.');
      const month = DateTime.fromMillis(ctx.services.clock.now(), { zone: (await siteSensors(db, loaded.asset.id)).zone }).startOf('month');
      const [startMs, endMs] = [(query.start ?? month).toMillis(), (query.end ?? month.plus({ months: 1 })).toMillis()];
      if (endMs <= startMs) throw fieldError('query', 'end', 'Must be after start.');
      // A bound on the work one request makes: a year and a bit covers the monthly view.
      if (endMs - startMs > MAX_KPI_WINDOW_MS) throw fieldError('query', 'end', 'The window may span at most 400 days.');
      return { startMs, endMs };
    },
    // FlexMeasures 1.0 answers this path with its sensor KPIs under `data`; Flexsite adds them to its money figures.
    command: async ({ ctx, db, user, loaded, checked }) => ({
      ...(await assetKpis(db, loaded.asset.id, { ...checked, nowMs: ctx.services.clock.now() })),
      data: await sensorKpis(db, loaded.asset, checked, (sensor) => can(user, 'read', sensorAccess(sensor))),
    }),
    response: { schema: cockpit.assetKpis, description: MONEY_RULES },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/now',
    summary: 'Get the latest value of each sensor of a site, its age and the health of its data',
    request: { params: idParams },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ ctx, db, loaded }) => siteNow(db, loaded.asset.id, ctx.services.clock.now(), ctx.services.config.instantStaleMs),
    response: { schema: cockpit.siteNow },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/plan-ahead',
    summary: "Get the next hours of a site's plan: each device's planned power and state of charge, prices, forecasts, targets",
    request: { params: idParams, query: planAheadQuery },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    command: ({ ctx, db, query, loaded }) =>
      planAhead(db, ctx.services.jobs, loaded.asset.id, { nowMs: ctx.services.clock.now(), hours: query.hours }),
    response: {
      schema: cockpit.planAhead,
      description:
        'Each step counts as the plan in force at it (the newest plan made at or before its start). Where no plan or ' +
        'no forecast covers part of the window, `no_plan`, `no_prices` and `no_forecast` say so: those parts are unknown, ' +
        'not zero. A plan made by the fallback scheduler or with warnings is `degraded`.',
    },
  }),
  route({
    method: 'GET',
    path: '/assets/:id/energy',
    summary: "Get a site's measured energy and money of a day, week, month or year in its zone, and of the period before",
    request: { params: idParams, query: energyQuery },
    load: async ({ db, params }) => ({ asset: await assetById(db, params.id, 'read') }),
    check: ({ query }) => {
      if (query.start && !localDate(query.start).isValid) throw fieldError('query', 'start', 'Not a date.');
      return Promise.resolve(query);
    },
    command: ({ ctx, db, loaded, checked }) =>
      energyPeriods(db, loaded.asset.id, checked.period, { date: checked.start, nowMs: ctx.services.clock.now() }),
    response: {
      schema: z.union([cockpit.energyPeriods, z.string()]),
      description:
        "Energy from the devices' measured power, each by its role. Money at the prices of the plan in force at each " +
        "step (as `GET /assets/<id>/kpis` picks it), over the steps measured, in `currency`: cost as it was is the site's " +
        'measured net grid flow (its grid meter; without one the forecast rest of the site plus the devices), cost ' +
        'without flex the same rest of the site with batteries idle and EVs charging at once; `money.rest_of_site` ' +
        'says `measured` or `forecast`. With `format=csv`: the ' +
        "period's figures and money (not its parts) as CSV, the previous period first.",
      present: (result: EnergyPeriods, ctx) => {
        if (ctx.query.format !== 'csv') return result;
        ctx.type = 'text/csv';
        return energyCsv(result);
      },
    },
  }),
];
