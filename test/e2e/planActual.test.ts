import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, factories } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { ARTIFACTS, chromiumPath, consoleWarnings, screenshot, screenshotOnFailure, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * Issue 24's plan against actual and schedule table, and issue 21's overlay chart, in a real
 * Chromium on data posted through the API: a day of prices, a schedule computed by the server,
 * measurements that leave the plan in two hours. The chart draws across its plot with a time
 * axis and both unit titles and shades exactly those two hours; the table and its CSV show the
 * hand-computed steps, whose costs add up to the job's plan cost.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const ZONE = 'Europe/Amsterdam';
/** Yesterday in the site's zone, or the day before when yesterday had a daylight-saving change. */
const DAY = ((day: DateTime) => (day.plus({ days: 1 }).diff(day, 'hours').hours === 24 ? day : day.minus({ days: 1 })))(
  DateTime.now().setZone(ZONE).minus({ days: 1 }).startOf('day'),
);
/** EUR/MWh: buy low, sell high, four times over each four hours. */
const PRICES = Array.from({ length: 24 }, (_, h) => [50, 100, 20, 80][h % 4]);
/**
 * The optimal plan of a 10 kWh battery with 10 kW, starting empty (consumption positive): charge
 * at 50 and 20, discharge at 100 and 80. Each step costs 10 kW × 1 h × price, the negative ones
 * earn: 0.5, −1, 0.2, −0.8 EUR, −1.1 EUR per four hours, −6.6 EUR for the day.
 */
const PLAN_KW = PRICES.map((_, h) => (h % 2 === 0 ? 10 : -10));
const PLAN_SOC = PLAN_KW.map((_, h) => (h % 2 === 0 ? 10 : 0));
const PLAN_COST = PRICES.map((p, h) => (PLAN_KW[h] / 1000) * p);
/**
 * Measured (consumption positive): as planned, except that the battery charged and discharged
 * only 4 kW at 02:00–04:00 and 10:00–12:00 (6 kW off the plan), and 9.5 kW at 04:00–06:00 (0.5 kW
 * off: within the tolerance of 10 % of the largest planned power, 1 kW).
 */
const MEASURED_KW = PLAN_KW.map((kw, h) =>
  [2, 3, 10, 11].includes(h) ? Math.sign(kw) * 4 : [4, 5].includes(h) ? Math.sign(kw) * 9.5 : kw,
);
const DEVIATING_HOURS = [2, 3, 10, 11];
/** The measured state of charge at each hour's start (kWh): what the measured power put in so far. */
const MEASURED_SOC = MEASURED_KW.map((_, h) => MEASURED_KW.slice(0, h).reduce((a, b) => a + b, 0));

let opened: OpenSite | undefined;
let t: TestServer;
let page: Page;
let errors: string[];
let warnings: string[];
let token: string;
let site: number;
let power: number;
let soc: number;
let price: number;
let jobId: string;

const post = (sensorId: number, values: number[], unit: string) =>
  t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, {
    token,
    json: { values, start: DAY.toISO(), duration: 'PT24H', unit },
  });

beforeAll(async () => {
  if (!chromiumPath && !process.env.CI) return;
  // The browser runs in UTC: the chart must read the site's zone, not the browser's.
  opened = await openSite({ zone: ZONE, account: 'Plan site', site: { type: 'battery', name: 'Home battery' } });
  ({ t, page, errors, token, site } = opened);
  warnings = consoleWarnings(page);
  const f = factories(t.db);
  power = (await f.sensor({ assetId: site, name: 'battery power', unit: 'kW', resolutionMinutes: 60, timezone: ZONE })).id;
  soc = (await f.sensor({ assetId: site, name: 'battery SoC', unit: 'kWh', resolutionMinutes: 60, timezone: ZONE })).id;
  price = (await f.sensor({ assetId: site, name: 'day-ahead prices', unit: 'EUR/MWh', resolutionMinutes: 60, timezone: ZONE })).id;
  expect((await post(price, PRICES, 'EUR/MWh')).status).toBe(200);
  const patched = await t.request('PATCH', `/api/v3_0/assets/${site}`, {
    token,
    json: { flex_context: JSON.stringify({ 'consumption-price-sensor': price }) },
  });
  expect(patched.status).toBe(200);
  const trigger = await t.request('POST', `/api/v3_0/sensors/${power}/schedules/trigger`, {
    token,
    json: {
      start: DAY.toISO(),
      duration: 'PT24H',
      'flex-model': {
        'soc-at-start': 0,
        'soc-unit': 'kWh',
        'soc-min': 0,
        'soc-max': 10,
        'roundtrip-efficiency': 1,
        'power-capacity': '10 kW',
        'state-of-charge': { sensor: soc },
      },
      'flex-context': { 'consumption-price-sensor': price },
    },
  });
  expect(trigger.status).toBe(200);
  jobId = trigger.body.schedule;
  await t.server.services.jobs.settled(jobId, 60_000);
  // Measurements as a meter reports them: the power sensor stores production positive.
  expect(
    (
      await post(
        power,
        MEASURED_KW.map((kw) => -kw || 0),
        'kW',
      )
    ).status,
  ).toBe(200);
  expect((await post(soc, MEASURED_SOC, 'kWh')).status).toBe(200);

  await signIn(page, `${t.url}/signin`, opened.email, PASSWORD);
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
}, 90_000);
screenshotOnFailure(() => page, 'plan');
afterAll(() => opened?.close());

/** x of each drawn point (tooltip marks) whose label names the field, and the labels. */
async function pointsOf(figure: Locator, field: string) {
  // The figure says it is ready once its data arrived; Vega draws the marks just after.
  await figure.locator(`g.mark-symbol path[aria-label*="${field}"]`).first().waitFor({ state: 'attached' });
  const marks = await figure.locator('g.mark-symbol path[aria-label]').evaluateAll((nodes) =>
    nodes.map((n) => ({
      label: n.getAttribute('aria-label') ?? '',
      x: Number(/translate\(([-\d.]+),/.exec(n.getAttribute('transform') ?? '')?.[1]),
    })),
  );
  return marks.filter((m) => m.label.includes(field));
}

/** What an axis-aware reader sees: the texts of every axis (labels and titles). */
const axisTexts = (figure: Locator) => figure.locator('g[aria-roledescription="axis"] text').allTextContents();

const seriesValue = (label: string, field: string) =>
  Number(new RegExp(`${field.replace(/[()]/g, '\\$&')}: ([-\u2212]?[\\d.,]+)`).exec(label)![1].replace('\u2212', '-').replace(/,/g, ''));

run('plan against actual, and the schedule table', () => {
  it('computes the hand-computed plan (the API side of the test data)', async () => {
    const job = (await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token })).body;
    expect(job.status).toBe('finished');
    expect(job.result.devices[0].power_mw.map((mw: number) => Math.round(mw * 1e6) / 1e3)).toEqual(PLAN_KW);
    expect(job.result.money.plan_cost).toBeCloseTo(-6.6, 6);
    expect(job.result.cost_per_step.map((c: number) => Math.round(c * 1e4) / 1e4)).toEqual(PLAN_COST.map((c) => Math.round(c * 1e4) / 1e4));
  });

  it('draws the plan against the measurements across the day, with both unit titles, shading the hours off the plan', async () => {
    await page.goto(`${t.url}/assets/${site}/now?range=day&date=${DAY.toISODate()}`);
    const figure = page.locator('figure[aria-label="Plan against actual"][data-state="ready"]');
    await figure.waitFor();
    const section = page.locator('.plan-actual');
    // The flex-context's price sensor and the site's SoC sensor are chosen by themselves.
    expect(await section.getByLabel('Price sensor').inputValue()).toBe(String(price));
    expect(await section.getByLabel('State of charge sensor').inputValue()).toBe(String(soc));

    const field = 'Power (kW, consumption positive)';
    const points = await pointsOf(figure, field);
    // 24 steps and the end of the last one, planned and measured.
    expect(points).toHaveLength(2 * 25);
    const planned = points.filter((p) => p.label.includes('battery power (scheduled)'));
    const measured = points.filter((p) => p.label.includes('battery power (measured)'));
    expect(planned.slice(0, 24).map((p) => seriesValue(p.label, field))).toEqual(PLAN_KW);
    expect(measured.slice(0, 24).map((p) => seriesValue(p.label, field) || 0)).toEqual(MEASURED_KW);
    // From the plot's left edge to its right, evenly: a day on a day-long axis.
    const xs = planned.map((p) => p.x);
    const plotWidth = xs[24] - xs[0];
    const figureWidth = (await figure.boundingBox())!.width;
    expect(xs[0]).toBeCloseTo(0, 0);
    expect(plotWidth).toBeGreaterThan(0.7 * figureWidth);
    const steps = xs.slice(1).map((x, i) => x - xs[i]);
    expect(Math.max(...steps) - Math.min(...steps)).toBeLessThan(1);
    // Tooltips in the site's time.
    expect(planned[2].label).toContain(`Time: ${DAY.plus({ hours: 2 }).toFormat('yyyy-LL-dd HH:mm')}`);

    const texts = await axisTexts(figure);
    expect(texts).toEqual(expect.arrayContaining([`Time (${ZONE})`, field, 'State of charge (kWh)', 'Price (EUR/MWh)']));
    expect(texts.filter((l) => /\d\d:\d\d$/.test(l)).length).toBeGreaterThanOrEqual(3);
    // SoC and prices are drawn too, on their own scales.
    const prices = await pointsOf(figure, 'Price (EUR/MWh)');
    expect(prices.slice(0, 24).map((p) => seriesValue(p.label, 'Price (EUR/MWh)'))).toEqual(PRICES);
    const socPlanned = (await pointsOf(figure, 'State of charge (kWh)')).filter((p) => p.label.includes('(scheduled)'));
    expect(socPlanned.slice(0, 3).map((p) => seriesValue(p.label, 'State of charge (kWh)'))).toEqual([0, 10, 0]);
    const socMeasured = (await pointsOf(figure, 'State of charge (kWh)')).filter((p) => p.label.includes('(measured)'));
    expect(socMeasured.map((p) => seriesValue(p.label, 'State of charge (kWh)'))).toEqual(MEASURED_SOC);

    // Shaded exactly where the measurement is more than 1 kW (10 % of 10 kW) off the plan.
    // Vega draws a rect as a path that starts at its corner (`M87.5,0h…`).
    const bands = await figure
      .locator('g.mark-rect path[aria-label]')
      .evaluateAll((nodes) =>
        nodes.map((n) => ({ label: n.getAttribute('aria-label') ?? '', x: Number(/^M([-\d.]+),/.exec(n.getAttribute('d') ?? '')?.[1]) })),
      );
    expect(bands).toHaveLength(DEVIATING_HOURS.length);
    bands.forEach((band, i) => {
      const h = DEVIATING_HOURS[i];
      expect(band.x).toBeCloseTo(xs[h], 0);
      expect(band.label).toContain(
        `${DAY.plus({ hours: h }).toFormat('yyyy-LL-dd HH:mm')} – ${DAY.plus({ hours: h + 1 }).toFormat('yyyy-LL-dd HH:mm')}`,
      );
    });
    expect(await section.getByRole('note', { name: 'Deviations' }).innerText()).toContain(
      'Shaded: 4 step(s) where measured power is more than 1 kW off the plan',
    );
    // For the README: the chart alone, and the page from its top down to the chart.
    await section.screenshot({ path: path.join(ARTIFACTS, 'plan-against-actual.png') });
    const bottom = await section.evaluate((el) => el.getBoundingClientRect().bottom + window.scrollY);
    await page.screenshot({
      path: path.join(ARTIFACTS, 'site-now-plan.png'),
      fullPage: true,
      clip: { x: 0, y: 0, width: 1280, height: bottom + 16 },
    });

    // On a phone the chart stays within the screen.
    await page.setViewportSize({ width: 375, height: 812 });
    await page.reload();
    await figure.waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await section.screenshot({ path: path.join(ARTIFACTS, 'plan-against-actual-narrow.png') });
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(warnings.filter((w) => /WARN|Infinite extent|NaN/.test(w))).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  it('shows the computed schedule as one overlay chart and a table whose costs add up to the plan cost, also as CSV', async () => {
    await page.goto(`${t.url}/jobs/${jobId}`);
    const figure = page.locator('figure[aria-label="Power, state of charge and price"][data-state="ready"]');
    await figure.waitFor();
    const field = 'Power (kW, consumption positive)';
    const points = await pointsOf(figure, field);
    expect(points.slice(0, 24).map((p) => seriesValue(p.label, field))).toEqual(PLAN_KW);
    expect(await axisTexts(figure)).toEqual(expect.arrayContaining([field, 'State of charge (kWh)', 'Price (EUR/MWh)']));
    const xs = points.map((p) => p.x);
    expect(xs[24] - xs[0]).toBeGreaterThan(0.7 * (await figure.boundingBox())!.width);

    const table = page.getByRole('table', { name: 'Schedule steps' });
    const headers = await table.locator('thead th').allInnerTexts();
    expect(headers).toEqual([
      `Start (${ZONE})`,
      'battery power (kW, consumption positive)',
      'battery power: SoC at step end (kWh)',
      'Price (EUR/MWh)',
      'Cost (EUR)',
    ]);
    const rows = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
    expect(rows).toHaveLength(24);
    expect(rows.slice(0, 4)).toEqual([
      [DAY.toFormat('yyyy-LL-dd HH:mm'), '10', '10', '50', '0.50'],
      [DAY.plus({ hours: 1 }).toFormat('yyyy-LL-dd HH:mm'), '\u221210', '0', '100', '\u22121.00'],
      [DAY.plus({ hours: 2 }).toFormat('yyyy-LL-dd HH:mm'), '10', '10', '20', '0.20'],
      [DAY.plus({ hours: 3 }).toFormat('yyyy-LL-dd HH:mm'), '\u221210', '0', '80', '\u22120.80'],
    ]);
    // The sum of the step costs is the plan cost the job reports: −6.60 EUR.
    const job = (await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token })).body;
    expect(await table.getByTestId('schedule-total-cost').innerText()).toBe('\u22126.60');
    expect(job.result.money.plan_cost).toBeCloseTo(-6.6, 6);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe(`schedule-${jobId}.csv`);
    const lines = fs
      .readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\r\n');
    expect(lines[0]).toBe(
      `Start (${ZONE}),"battery power (kW, consumption positive)",battery power: SoC at step end (kWh),Price (EUR/MWh),Cost (EUR)`,
    );
    expect(lines).toHaveLength(25);
    const cells = lines.slice(1).map((l) => l.split(','));
    expect(cells.map((c) => DateTime.fromISO(c[0]).toMillis())).toEqual(PRICES.map((_, h) => DAY.plus({ hours: h }).toMillis()));
    expect(cells[0][0]).toBe(DAY.toISO({ suppressMilliseconds: true }));
    expect(cells.map((c) => Math.round(Number(c[1]) * 1000) / 1000)).toEqual(PLAN_KW);
    expect(cells.map((c) => Math.round(Number(c[2]) * 1000) / 1000)).toEqual(PLAN_SOC);
    expect(cells.map((c) => Number(c[3]))).toEqual(PRICES);
    const costs = cells.map((c) => Number(c[4]));
    costs.forEach((c, h) => expect(c).toBeCloseTo(PLAN_COST[h], 6));
    expect(costs.reduce((a, b) => a + b, 0)).toBeCloseTo(job.result.money.plan_cost, 6);
    await figure.scrollIntoViewIfNeeded();
    await screenshot(page, 'schedule-overlay-table');
    expect(warnings.filter((w) => /WARN|Infinite extent|NaN/.test(w))).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  it("refuses another account's sensors to the chart's data requests", async () => {
    const f = factories(t.db);
    const other = await f.account({ name: 'Other site' });
    const stranger = await f.user({ accountId: other.id, roles: ['account-admin'] });
    const asked = { start: DAY.toISO() ?? undefined, duration: 'PT24H', unit: 'kW' };
    expect((await t.request('GET', `/api/v3_0/sensors/${power}/data`, { token: stranger.token, query: asked })).status).toBe(403);
    expect((await t.request('GET', '/api/v3_0/sources', { token: stranger.token, query: { sensor_id: power } })).status).toBe(403);
  });
});
