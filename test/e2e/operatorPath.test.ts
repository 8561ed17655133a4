import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { householdLoad } from '../../bench/_forecastSeries.ts';
import { factories, PASSWORD } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { ARTIFACTS, chromiumPath, consoleWarnings, screenshot, screenshotOnFailure, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * Issue 21, the rest of the operator's path: a FlexMeasures 0.18 battery (limits as attributes)
 * meets a filled form in kW, kWh and %, prices in the price sensor's currency; Compute is a Tab
 * and an Enter away; the stored settings are edited key by key; the CSV names its sign
 * convention; "Forecast now" says how it went; and a walk over every page at 1280 and 375 px
 * logs no console errors and no Vega warnings.
 */

const ZONE = 'Europe/Amsterdam';
const STEP = 90_000;
const QUARTER = 900_000;
const run = chromiumPath || process.env.CI ? describe : describe.skip;

let opened: OpenSite | undefined;
let t: TestServer;
let page: Page;
let errors: string[];
let warnings: string[];
let token: string;
let assetId: number;
let batteryId: number;
let priceId: number;
let noHistory: number;
let shortHistory: number;
let longHistory: number;
let scheduleJobId: string;
let forecastJobId: string;
const today = DateTime.now().setZone(ZONE).startOf('day');

beforeAll(async () => {
  if (!chromiumPath && !process.env.CI) return;
  opened = await openSite({
    zone: ZONE,
    account: 'Legacy site',
    // Set up as FlexMeasures 0.18 did: the battery's limits are attributes, nothing is stored as a flex-model.
    site: {
      type: 'battery',
      name: 'Legacy battery',
      attributes: { capacity_in_mw: 0.5, min_soc_in_mwh: 0.05, max_soc_in_mwh: 0.45, roundtrip_efficiency: 0.9 },
    },
  });
  ({ t, page, errors, token, site: assetId } = opened);
  warnings = consoleWarnings(page);
  const f = factories(t.db);
  batteryId = (await f.sensor({ assetId, name: 'battery power', unit: 'kW', resolutionMinutes: 60, timezone: ZONE })).id;
  priceId = (await f.sensor({ assetId, name: 'spot prices', unit: 'NOK/MWh', resolutionMinutes: 60, timezone: ZONE })).id;
  const hours = today.plus({ days: 3 }).diff(today, 'hours').hours;
  await f.beliefs(
    priceId,
    today.toMillis(),
    3_600_000,
    Array.from({ length: hours }, (_, h) => [300, 280, 260, 700, 900, 500][h % 6]),
    Date.now() - 3_600_000,
  );
  // Stored battery power (production positive) for the CSV: tomorrow 00:00 produces 1.5 kW, 01:00 consumes 2 kW.
  await f.beliefs(batteryId, today.plus({ days: 1 }).toMillis(), 3_600_000, [1.5, -2], Date.now() - 3_600_000);
  // Load sensors with no, two days' and three weeks' history up to now, for "Forecast now".
  const load = (name: string) =>
    f.sensor({ assetId, name, unit: 'kW', resolutionMinutes: 15, timezone: ZONE, attributes: { consumption_is_positive: true } });
  noHistory = (await load('new meter')).id;
  shortHistory = (await load('young meter')).id;
  longHistory = (await load('house load')).id;
  const end = Math.floor(Date.now() / QUARTER) * QUARTER;
  for (const [id, days] of [
    [shortHistory, 2],
    [longHistory, 21],
  ]) {
    const start = end - days * 86_400_000;
    await f.beliefs(id, start, QUARTER, householdLoad(start, QUARTER, days * 96).values, end - 60_000);
  }

  await signIn(page, t.url + '/signin', opened.email, PASSWORD);
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
}, 60_000);
screenshotOnFailure(() => page, 'operator');
afterAll(() => opened?.close());

const storedFlex = async () => {
  const row = await t
    .db('generic_asset_flex')
    .where({ asset_id: assetId })
    .first<{ flex_model: string; flex_context: string } | undefined>();
  return { model: JSON.parse(row?.flex_model ?? '{}'), context: JSON.parse(row?.flex_context ?? '{}') };
};

run("the operator's path, continued", () => {
  it("fills the schedule form from a 0.18 asset's attributes in kW, kWh and %, prices in the sensor's currency", async () => {
    await page.goto(t.url + `/assets/${assetId}`);
    const panel = page.locator('.schedule-panel');
    await panel.getByLabel('Power capacity (kW)').waitFor();
    // capacity_in_mw 0.5, min/max_soc_in_mwh 0.05/0.45, roundtrip_efficiency 0.9: shown with their units, not blank.
    expect(await panel.getByLabel('Power capacity (kW)').inputValue()).toBe('500 kW');
    expect(await panel.getByLabel('SoC minimum (kWh)').inputValue()).toBe('50');
    expect(await panel.getByLabel('SoC maximum (kWh)').inputValue()).toBe('450');
    expect(await panel.getByLabel('Round-trip efficiency (%)').inputValue()).toBe('90');
    expect(await panel.getByLabel('Grid connection capacity (kW)').inputValue()).toBe('500 kW');
    expect(await panel.getByRole('note', { name: 'Filled from attributes' }).textContent()).toContain(
      'capacity_in_mw, min_soc_in_mwh, max_soc_in_mwh, roundtrip_efficiency',
    );
    // Prices in the chosen price sensor's currency.
    await panel.getByLabel('Price of consumption').selectOption(String(priceId));
    await panel.getByText('Advanced: soft constraints').click();
    const breach = panel.getByLabel('Price of SoC below a minimum or target (NOK/MWh)');
    await breach.fill('500');
    await panel.getByLabel('SoC at start (kWh)').fill('100');
    // A ratio typed by habit in a % field is refused, not taken as 0.9 %; nothing is stored.
    await panel.getByLabel('Round-trip efficiency (%)').fill('0.9');
    await panel.getByRole('button', { name: "Save as this asset's defaults" }).click();
    await panel.getByText('Efficiencies are in %: write 90 for 90 %.').waitFor();
    expect(await storedFlex()).toEqual({ model: {}, context: {} });
    await panel.getByLabel('Round-trip efficiency (%)').fill('90');
    await panel.getByRole('button', { name: "Save as this asset's defaults" }).click();
    await panel.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const stored = await storedFlex();
    expect(stored.model).toMatchObject({
      'power-capacity': '500 kW',
      'soc-min': 50,
      'soc-max': 450,
      'soc-at-start': 100,
      'soc-unit': 'kWh',
      'roundtrip-efficiency': '90%',
    });
    expect(stored.context).toEqual({
      'consumption-price-sensor': priceId,
      'site-power-capacity': '500 kW',
      'soc-minima-breach-price': '500 NOK/MWh',
    });
    await screenshot(page, 'asset-legacy-form');
    expect(errors).toEqual([]);
  }, 60_000);

  it(
    'reaches Compute from the start of the schedule panel in at most 5 Tab presses, and computes with Enter',
    async () => {
      await page.reload();
      const panel = page.locator('.schedule-panel');
      await panel.getByLabel('Power capacity (kW)').waitFor();
      // Start where the panel starts, at its heading, as heading navigation puts a screen-reader user
      // (a click would focus the page's main region, which starts the Tab order at the page's top).
      await page.locator('#schedule-title').evaluate((h: HTMLElement) => {
        h.tabIndex = -1;
        h.focus();
      });
      let tabs = 0;
      const active = () => page.evaluate(() => ({ id: document.activeElement?.id ?? '', text: document.activeElement?.textContent ?? '' }));
      while (tabs < 5 && (await active()).id !== 'compute-schedule') {
        await page.keyboard.press('Tab');
        tabs++;
        if ((await active()).text === 'Skip to Compute') {
          // Shown where the panel is once focused, not off screen.
          const box = (await panel.getByRole('link', { name: 'Skip to Compute' }).boundingBox())!;
          expect(box.x).toBeGreaterThanOrEqual(0);
          await page.keyboard.press('Enter');
        }
      }
      expect((await active()).id).toBe('compute-schedule');
      expect(tabs).toBeLessThanOrEqual(5);
      await page.keyboard.press('Enter');
      await panel.locator('.job-state .badge.finished', { hasText: /^Finished$/ }).waitFor({ timeout: STEP });
      scheduleJobId = /[0-9a-f-]{36}/.exec((await panel.locator('.job-state > p > code').textContent())!)![0];
      const job = await t.request('GET', `/api/v3_0/jobs/${scheduleJobId}`, { token });
      expect(job.body.status).toBe('finished');
      expect(job.body.result.currency).toBe('NOK');
      // 500 kW from the attribute, as shown.
      expect(Math.max(...job.body.result.devices[0].power_mw.map(Math.abs))).toBeLessThanOrEqual(0.5 + 1e-9);
      await screenshot(page, 'asset-schedule-keyboard');
      expect(errors).toEqual([]);
    },
    STEP + 30_000,
  );

  it('edits the stored settings key by key, keeping every key as stored that was not touched', async () => {
    await page.reload();
    const before = await storedFlex();
    const context = page.locator('section[aria-label="Stored flex-context"]');
    await context.getByLabel('soc-minima-breach-price', { exact: true }).fill('700 NOK/MWh');
    await context.getByRole('button', { name: 'Remove site-power-capacity' }).click();
    await context.getByLabel('New flex-context key').fill('relax-soc-constraints');
    await context.getByLabel('New flex-context value').fill('true');
    await page.getByRole('form', { name: 'Stored flex settings' }).getByRole('button', { name: 'Save settings' }).click();
    await page.locator('section[aria-label="Stored flex-context"] dt', { hasText: 'relax-soc-constraints' }).waitFor();
    const after = await storedFlex();
    expect(after.model).toEqual(before.model);
    expect(after.context).toEqual({
      'consumption-price-sensor': priceId,
      'soc-minima-breach-price': '700 NOK/MWh',
      'relax-soc-constraints': true,
    });
    expect(errors).toEqual([]);
  }, 60_000);

  it('names the sign convention of stored power in the downloaded CSV', async () => {
    const day = today.plus({ days: 1 });
    await page.goto(t.url + `/sensors/${batteryId}?range=day&date=${day.toISODate()}`);
    await page.getByRole('button', { name: 'Download CSV' }).and(page.locator(':enabled')).waitFor();
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await (await download).path();
    const lines = fs.readFileSync(file, 'utf8').trim().split('\r\n');
    expect(lines[0]).toBe('event_start,"event_value (production positive, consumption negative)",unit,source,belief_time');
    // As stored: 1.5 kW produced, then 2 kW consumed (the schedule computed above is there too, under its own source).
    const uploaded = lines.slice(1).filter((l) => l.split(',')[3] === 'test fixtures');
    expect(uploaded.map((l) => Number(l.split(',')[1]))).toEqual([1.5, -2]);
    expect(errors).toEqual([]);
  }, 60_000);

  it(
    'forecasts at the press of "Forecast now", saying how it went in three states',
    async () => {
      const forecastNow = async (sensorId: number) => {
        await page.goto(t.url + `/sensors/${sensorId}`);
        const box = page.getByLabel('Forecast now');
        await box.getByRole('button', { name: 'Forecast now' }).click();
        return box;
      };
      const forecastRows = (sensorId: number) =>
        t
          .db('timed_belief as b')
          .join('data_source as s', 's.id', 'b.source_id')
          .where({ 'b.sensor_id': sensorId, 's.type': 'forecaster' })
          .count<{ n: number }[]>({ n: '*' })
          .then((r) => Number(r[0].n));

      // No history: refused, in red, with the reason; nothing stored.
      let box = await forecastNow(noHistory);
      await box.locator('.badge.failed', { hasText: 'Failed' }).waitFor();
      expect(await box.getByRole('alert').textContent()).toContain('Too little history');
      expect(await forecastRows(noHistory)).toBe(0);
      errors.length = 0; // the browser logs the 422

      // Two days: made, but without a backtest to choose the method by: amber, saying so.
      box = await forecastNow(shortHistory);
      await box.locator('.badge.warned', { hasText: 'Finished with a warning' }).waitFor({ timeout: STEP });
      expect(await box.getByRole('region', { name: 'Warnings' }).textContent()).toContain('chosen without a backtest');
      expect(await forecastRows(shortHistory)).toBeGreaterThan(0);

      // Three weeks: made and backtested, green; the backtest shows, the chart has the forecast as a source.
      box = await forecastNow(longHistory);
      await box.locator('.badge.finished', { hasText: /^Finished$/ }).waitFor({ timeout: STEP });
      expect(await box.textContent()).toMatch(/Forecast with \S+ from \d{4}-\d\d-\d\d \d\d:\d\d to/);
      await page.getByLabel('Forecast skill').waitFor();
      forecastJobId = (await box.getByRole('link', { name: /^job / }).textContent())!.slice(4);
      const job = await t.request('GET', `/api/v3_0/jobs/${forecastJobId}`, { token });
      expect(job.body).toMatchObject({ status: 'finished', queue: 'forecasting', sensor_id: longHistory });
      expect(await forecastRows(longHistory)).toBeGreaterThan(0);
      await screenshot(page, 'sensor-forecast-now');
      await box.getByRole('link', { name: /^job / }).click();
      await page.locator('.page-head .badge.finished').waitFor();
      expect(errors).toEqual([]);
    },
    3 * STEP,
  );

  it('walks every page at 1280 and 375 px without console errors, Vega warnings or sideways scrolling', async () => {
    const pages = [
      ['dashboard', '/'],
      ['asset', `/assets/${assetId}`],
      ['site-now', `/assets/${assetId}/now`],
      ['sensor', `/sensors/${longHistory}`],
      ['sensor-prices', `/sensors/${priceId}`],
      ['jobs', '/jobs'],
      ['job-schedule', `/jobs/${scheduleJobId}`],
      ['job-forecast', `/jobs/${forecastJobId}`],
      ['accounts', '/accounts'],
      ['profile', '/profile'],
    ];
    warnings.length = 0;
    for (const width of [1280, 375]) {
      await page.setViewportSize({ width, height: width === 1280 ? 800 : 812 });
      for (const [name, route] of pages) {
        await page.goto(t.url + route);
        await page.locator('main h1').first().waitFor();
        // Loaded: no loading notice left, every chart drawn.
        await expect.poll(() => page.locator('.loading').count(), { timeout: 20_000 }).toBe(0);
        await expect.poll(() => page.locator('figure[data-state]:not([data-state="ready"])').count(), { timeout: 20_000 }).toBe(0);
        expect(
          await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
          `${name} at ${width}`,
        ).toBeLessThanOrEqual(0);
        await screenshot(page, `walk-${width}-${name}`);
      }
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(warnings.filter((w) => /WARN|Infinite extent|customFormatTypes|NaN/.test(w))).toEqual([]);
    expect(errors).toEqual([]);
  }, 180_000);

  it('leaves the screenshots', () => {
    for (const name of ['asset-legacy-form', 'asset-schedule-keyboard', 'sensor-forecast-now', 'walk-375-asset', 'walk-1280-sensor'])
      expect(fs.existsSync(path.join(ARTIFACTS, `${name}.png`))).toBe(true);
  });
});
