import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, factories } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { ARTIFACTS, chartValues, chromiumPath, screenshot, screenshotOnFailure, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * Issue 32's sign trap and phone layout, walked in Chromium with the browser in New York and the
 * site in Amsterdam: a house load made through "Add a sensor" with its sign chosen, positive values
 * uploaded, and a schedule that costs what the house uses; a load made the old way (production
 * positive) warned about on Site now, its page and its schedule; the sign beside the numbers; plan
 * against actual in the chosen convention; and at 375 px the key columns and the chart on screen.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const ZONE = 'Europe/Amsterdam';
const BROWSER_ZONE = 'America/New_York';
/** Yesterday in the site's zone: the last whole day, which the negative-all-day check reads. */
const DAY = DateTime.now().setZone(ZONE).minus({ days: 1 }).startOf('day');
/** 24, or 23/25 on a daylight-saving day. */
const HOURS = DAY.plus({ days: 1 }).diff(DAY, 'hours').hours;
/** EUR/MWh, flat: a battery with losses has nothing to gain and stays idle. */
const PRICE = 250;
/** The house uses 1 kW every hour (consumption positive). */
const LOAD_KW = 1;
/**
 * The schedule's cost by hand: the battery idles, the site buys the house's 1 kW each hour at
 * 250 EUR/MWh: HOURS × 1 kWh × 0.25 EUR/kWh = 6.00 EUR on a 24-hour day. Read with the wrong sign
 * the same load is sold: −6.00 EUR.
 */
const COST = HOURS * (LOAD_KW / 1000) * PRICE;
/** A grid meter that stores production positive and reports 1.28 kW. */
const GRID_KW = 1.28;

let opened: OpenSite | undefined;
let t: TestServer;
let page: Page;
let errors: string[];
let token: string;
let site: number;
let battery: number;
let price: number;
let kitchen: number;
let grid: number;
let load: number;

const post = (sensorId: number, values: number[], unit: string) =>
  t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, { token, json: { values, start: DAY.toISO(), duration: `PT${HOURS}H`, unit } });

/** Triggers a day's schedule of the battery with a load beside it, and waits for it. */
async function schedule(loadSensor: number) {
  const trigger = await t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
    token,
    json: {
      start: DAY.toISO(),
      duration: `PT${HOURS}H`,
      'flex-model': {
        'soc-at-start': 0,
        'soc-unit': 'kWh',
        'soc-min': 0,
        'soc-max': 10,
        'roundtrip-efficiency': 0.9,
        'power-capacity': '5 kW',
      },
      'flex-context': { 'consumption-price-sensor': price, 'inflexible-device-sensors': [loadSensor] },
    },
  });
  expect(trigger.status, JSON.stringify(trigger.body)).toBe(200);
  await t.server.services.jobs.settled(trigger.body.schedule, 60_000);
  const job = (await t.request('GET', `/api/v3_0/jobs/${trigger.body.schedule}`, { token })).body;
  expect(job.status).toBe('finished');
  return job;
}

/** A table's row, named by its row header. */
const rowCells = (rowName: string, table: string) =>
  page
    .getByRole('table', { name: table })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: rowName }) });

/** The right edge of an element on screen. */
const rightEdge = async (l: Locator) => {
  const box = (await l.boundingBox())!;
  return box.x + box.width;
};
const noSidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

beforeAll(async () => {
  if (!chromiumPath && !process.env.CI) return;
  // One asset holds it all (a battery asset, so that its power sensor can be scheduled).
  opened = await openSite({ viewport: { width: 1280, height: 900 }, timezoneId: BROWSER_ZONE, zone: ZONE, site: { type: 'battery' } });
  ({ t, page, errors, token, site } = opened);
  const f = factories(t.db);
  const sensor = (name: string, unit: string, attributes?: Record<string, unknown>) =>
    f.sensor({ assetId: site, name, unit, resolutionMinutes: 60, timezone: ZONE, attributes }).then((s) => s.id);
  battery = await sensor('battery power', 'kW');
  price = await sensor('day-ahead prices', 'EUR/MWh');
  grid = await sensor('grid power', 'kW');
  expect((await post(price, Array<number>(HOURS).fill(PRICE), 'EUR/MWh')).status).toBe(200);
  expect((await post(grid, Array<number>(HOURS).fill(GRID_KW), 'kW')).status).toBe(200);
  // A load made as "Add a sensor" made them before the sign choice (and as API clients still do
  // without the attribute): production positive; its positive house values read as export.
  const made = await t.request('POST', '/api/v3_0/sensors', {
    token,
    json: { name: 'kitchen load', unit: 'kW', event_resolution: 'PT1H', timezone: ZONE, generic_asset_id: site },
  });
  expect(made.status).toBe(201);
  kitchen = made.body.id;
  expect((await post(kitchen, Array<number>(HOURS).fill(LOAD_KW), 'kW')).status).toBe(200);

  await signIn(page, `${t.url}/signin`, opened.email, PASSWORD);
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
}, 90_000);
screenshotOnFailure(() => page, 'signs');
afterAll(() => opened?.close());

run('the sign trap', () => {
  it('makes a house load with its sign chosen, and the API stores the sign', async () => {
    await page.goto(`${t.url}/assets/${site}`);
    await page.getByText('Add a sensor').click();
    const form = page.getByRole('form', { name: 'New sensor' });
    await form.getByLabel('Sensor name').fill('house load');
    await form.getByLabel('Unit').fill('kW');
    await form.getByLabel('Resolution').fill('PT1H');
    await form.getByLabel('Time zone').fill(ZONE);
    // A power sensor is not made until its sign is chosen: no guess is made for the operator.
    await form.getByRole('button', { name: 'Add sensor' }).click();
    expect(await form.getByLabel('Sign').evaluate((el) => (el as HTMLSelectElement).validity.valueMissing)).toBe(true);
    expect(await t.db('sensor').where({ name: 'house load' }).first()).toBeUndefined();
    await form.getByLabel('Sign').selectOption({ label: 'Consumption positive (use and import are positive)' });
    await form.getByRole('button', { name: 'Add sensor' }).click();
    await page.getByRole('link', { name: 'house load' }).waitFor();
    // The asset's sensor list states the sign beside the unit.
    const listed = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'house load' }) });
    expect(await listed.getByRole('cell').first().innerText()).toBe('kW, consumption positive');
    load = (await t.db('sensor').where({ name: 'house load' }).first<{ id: number }>('id')).id;
    const stored = await t.request('GET', `/api/v3_0/sensors/${load}`, { token });
    expect(stored.status).toBe(200);
    expect(JSON.parse(stored.body.attributes)).toEqual({ consumption_is_positive: true });
    // A price sensor has no sign to choose.
    await form.getByLabel('Unit').fill('EUR/MWh');
    expect(await form.getByLabel('Sign').count()).toBe(0);
    expect(errors).toEqual([]);
  }, 60_000);

  it('states the sign beside the upload, uploads positive values and stores them as sent', async () => {
    await page.goto(`${t.url}/sensors/${load}?range=day&date=${DAY.toISODate()}`);
    await page.getByRole('heading', { name: 'house load' }).waitFor();
    expect(await page.locator('.page-head .muted').innerText()).toContain('kW, consumption positive');
    const upload = page.locator('.csv-upload');
    expect(await upload.innerText()).toContain('value in kW, consumption positive');
    const csv =
      'event_start,event_value\n' + Array.from({ length: HOURS }, (_, h) => `${DAY.plus({ hours: h }).toISO()},${LOAD_KW}`).join('\n');
    await page.getByLabel('CSV file').setInputFiles({ name: 'load.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    expect(await page.getByRole('table', { name: 'Upload preview' }).locator('thead').innerText()).toContain(
      'Value (kW, consumption positive)',
    );
    await page.getByRole('button', { name: `Upload ${HOURS} row(s)` }).click();
    await expect.poll(() => chartValues(page, 'Sensor chart', 'Value'), { timeout: 20_000 }).toEqual(Array<number>(HOURS).fill(LOAD_KW));
    const axes = await page.locator('figure[aria-label="Sensor chart"] g[aria-roledescription="axis"] text').allTextContents();
    expect(axes).toContain('kW, consumption positive');
    const data = await t.request('GET', `/api/v3_0/sensors/${load}/data`, {
      token,
      query: { start: DAY.toISO()!, duration: `PT${HOURS}H`, unit: 'kW' },
    });
    expect(data.body.values).toEqual(Array<number>(HOURS).fill(LOAD_KW));
    // Consumption all day: no warning.
    expect(await page.getByRole('alert').count()).toBe(0);
    await screenshot(page, 'signs-sensor-page');
    expect(errors).toEqual([]);
  }, 60_000);

  it('plans the consumption-positive load as a cost: 6.00 EUR by hand, not earnings', async () => {
    const job = await schedule(load);
    expect(job.result.money.plan_cost).toBeCloseTo(COST, 6);
    expect((job.result.warnings ?? []).map((w: { code: string }) => w.code)).not.toContain('load-negative');
    await page.goto(`${t.url}/jobs/${job.id}`);
    await expect.poll(() => page.getByTestId('energy-cost').innerText()).toContain(`costs`);
    expect(await page.getByTestId('energy-cost').innerText()).toContain(COST.toFixed(2));
    expect(await page.getByTestId('schedule-total-cost').innerText()).toBe(COST.toFixed(2));
    await screenshot(page, 'signs-job-cost');
    expect(errors).toEqual([]);
  }, 90_000);

  it('warns about a load negative all day: on Site now, on its page, in its schedule', async () => {
    const now = await t.request('GET', `/api/v3_0/assets/${site}/now`, { token });
    const bySensor = new Map(now.body.sensors.map((s: { id: number }) => [s.id, s]));
    expect(bySensor.get(kitchen)).toMatchObject({ sign: 'production positive', negative_all_day: { day: DAY.toISODate(), values: HOURS } });
    expect(bySensor.get(load)).toMatchObject({ sign: 'consumption positive', negative_all_day: null });

    await page.goto(`${t.url}/assets/${site}/now`);
    const health = (name: string) => rowCells(name, 'Sensors now').getByRole('cell').nth(3);
    await expect.poll(() => health('kitchen load').innerText()).toContain(`negative all day on ${DAY.toISODate()}: check its sign`);
    expect(await health('house load').innerText()).not.toContain('negative');
    // The sign beside the latest value.
    expect(await rowCells('house load', 'Sensors now').getByRole('cell').nth(1).innerText()).toBe(`${LOAD_KW} kW, consumption positive`);
    expect(await rowCells('kitchen load', 'Sensors now').getByRole('cell').nth(1).innerText()).toBe(`${LOAD_KW} kW, production positive`);

    await page.goto(`${t.url}/sensors/${kitchen}`);
    expect(await page.getByRole('alert').innerText()).toContain(
      `Negative all day: all ${HOURS} values of ${DAY.toISODate()} (${ZONE}) are below zero read consumption positive (the sensor stores production positive)`,
    );

    // Its schedule sells what the house uses (−6.00 EUR), and says why that is suspect.
    const job = await schedule(kitchen);
    expect(job.result.money.plan_cost).toBeCloseTo(-COST, 6);
    const warning = job.result.warnings.find((w: { code: string }) => w.code === 'load-negative');
    expect(warning).toMatchObject({ field: 'inflexible-device-sensors', sensor_id: kitchen });
    await page.goto(`${t.url}/jobs/${job.id}`);
    await expect.poll(() => page.getByRole('region', { name: 'Warnings' }).innerText()).toContain('kitchen load');
    expect(await page.getByRole('region', { name: 'Warnings' }).innerText()).toContain(
      'is negative (producing) in every step of the schedule',
    );
    await screenshot(page, 'signs-job-warning');
    expect(errors).toEqual([]);
  }, 90_000);

  it("draws plan against actual in the chosen convention: a production-positive meter's +1.28 kW", async () => {
    await page.goto(`${t.url}/assets/${site}/now?range=day&date=${DAY.toISODate()}`);
    const section = page.locator('.plan-actual');
    await section.getByLabel('Power sensor').selectOption({ label: 'grid power (kW, production positive)' });
    const figure = page.locator('figure[aria-label="Plan against actual"][data-state="ready"]');
    // Consumption positive (the default): the meter's production of 1.28 kW is −1.28.
    await expect
      // Each step, and the end of the last one.
      .poll(async () => (await chartValues(page, 'Plan against actual', 'Power (kW, consumption positive)')).slice(0, HOURS), {
        timeout: 20_000,
      })
      .toEqual(Array<number>(HOURS).fill(-GRID_KW));
    await section.getByLabel('Power drawn').selectOption('production');
    await expect
      .poll(async () => (await chartValues(page, 'Plan against actual', 'Power (kW, production positive)')).slice(0, HOURS), {
        timeout: 20_000,
      })
      .toEqual(Array<number>(HOURS).fill(GRID_KW));
    expect(await figure.locator('g[aria-roledescription="axis"] text').allTextContents()).toContain('Power (kW, production positive)');
    await section.screenshot({ path: path.join(ARTIFACTS, 'signs-plan-actual-production.png') });
    expect(errors).toEqual([]);
  }, 60_000);
});

run('at 375 px', () => {
  beforeAll(async () => {
    await page.setViewportSize({ width: 375, height: 812 });
  });

  it('keeps Site now’s key columns on screen, without sideways scrolling', async () => {
    await page.goto(`${t.url}/assets/${site}/now`);
    const row = rowCells('kitchen load', 'Sensors now');
    await row.waitFor();
    const cells = row.getByRole('cell');
    // Latest, Age, Health, Gaps today, Last upload.
    for (const i of [1, 2, 3, 4, 5]) expect(await rightEdge(cells.nth(i)), `cell ${i}`).toBeLessThanOrEqual(375);
    expect(await cells.nth(3).innerText()).toContain('negative all day');
    expect(await noSidewaysScroll()).toBeLessThanOrEqual(0);
    await screenshot(page, 'signs-site-now-375');
    // A sensor's values as a table: each value, its sign and its source on screen.
    await page.goto(`${t.url}/sensors/${load}?range=day&date=${DAY.toISODate()}`);
    await page.getByText('Table', { exact: true }).click();
    const values = page.getByRole('table', { name: 'Sensor data' });
    // The headings are hidden on a phone (each cell shows its own) but still name the columns.
    await values.getByRole('columnheader', { name: 'Value (consumption positive)' }).waitFor({ state: 'attached' });
    for (const cell of await values.locator('tbody tr').first().locator('td').all()) expect(await rightEdge(cell)).toBeLessThanOrEqual(375);
    expect(await noSidewaysScroll()).toBeLessThanOrEqual(0);
    expect(errors).toEqual([]);
  }, 60_000);

  it('keeps an automation’s next run on screen', async () => {
    const made = await t.request('POST', `/api/v3_0/assets/${site}/automations`, {
      token,
      json: { name: 'morning forecast', cron: '0 6 * * *', forecast_sensor_ids: [load] },
    });
    expect(made.status).toBe(201);
    await page.goto(`${t.url}/assets/${site}`);
    const row = rowCells('morning forecast', 'Automations');
    await row.waitFor();
    const cells = row.getByRole('cell');
    for (const cell of await cells.all()) expect(await rightEdge(cell)).toBeLessThanOrEqual(375);
    // Tomorrow (or today) at 06:00 in the site's zone, whatever the browser's.
    expect((await cells.allInnerTexts()).join(' ')).toMatch(/\d{4}-\d\d-\d\d 06:00/);
    expect(await noSidewaysScroll()).toBeLessThanOrEqual(0);
    await row.scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'signs-automations-375.png') });
    expect(errors).toEqual([]);
  }, 60_000);

  it('draws the schedule chart across the width with its legend inside, and its price and cost columns on screen', async () => {
    const job = await schedule(load);
    await page.goto(`${t.url}/jobs/${job.id}`);
    const figure = page.locator('figure[aria-label="Power, state of charge and price"][data-state="ready"]');
    await figure.waitFor();
    // Polled: the chart may still be fitting itself to the narrow container after its first draw.
    const svgBox = async () => (await figure.locator('svg').first().boundingBox())!;
    await expect.poll(async () => (await svgBox()).width).toBeGreaterThanOrEqual(300);
    const svg = await svgBox();
    expect(svg.x + svg.width).toBeLessThanOrEqual(375);
    // The plot itself, not only the picture: its first and last points are most of the width apart.
    const span = async () => {
      const xs = await figure
        .locator('g.mark-symbol path[aria-label]')
        .evaluateAll((nodes) => nodes.map((n) => Number(/translate\(([-\d.]+),/.exec(n.getAttribute('transform') ?? '')?.[1])));
      return Math.max(...xs) - Math.min(...xs);
    };
    await expect.poll(span).toBeGreaterThanOrEqual(200);
    // The legend below the plot, whole.
    const legend = (await figure.locator('g[aria-roledescription="legend"]').first().boundingBox())!;
    expect(legend.x).toBeGreaterThanOrEqual(svg.x);
    expect(legend.x + legend.width).toBeLessThanOrEqual(svg.x + svg.width);
    expect(legend.y).toBeGreaterThan(svg.y + svg.height / 2);
    const table = page.getByRole('table', { name: 'Schedule steps' });
    const first = table.locator('tbody tr').first();
    for (const cell of await first.locator('td').all()) expect(await rightEdge(cell)).toBeLessThanOrEqual(375);
    expect(await noSidewaysScroll()).toBeLessThanOrEqual(0);
    await figure.scrollIntoViewIfNeeded();
    await screenshot(page, 'signs-job-375');
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await figure.screenshot({ path: path.join(ARTIFACTS, 'signs-chart-375.png') });
    expect(errors).toEqual([]);
  }, 90_000);
});
