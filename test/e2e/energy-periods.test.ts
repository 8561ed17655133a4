import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measuredWeek, plannedWeek, postHourly, WEEK } from '../helpers/energyWeek.ts';
import { PASSWORD } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { ARTIFACTS, chromiumPath, launchBrowser, screenshot, signIn } from './browser.ts';
import { openPage } from './fixture.ts';

/**
 * Issue 33's energy and money per period as the operator sees it on the site page, from a browser
 * in New York, the site in Amsterdam. The week is the API test's: Monday 24 to Sunday 30 March
 * 2025, whose Sunday is the daylight-saving day (23 hours: 02:00 does not exist). Each hour, by
 * its Amsterdam hour h (an ordinary day has 12 hours before noon and 12 from it; the Sunday 11 and 12):
 * - grid meter (consumption positive): +2 kW before noon, −1 kW from noon;
 * - PV (production positive): 0 before noon, 3 kW from noon;
 * - battery (production positive, 10 kWh): charging 1 kW before noon, discharging 1 kW from noon;
 * - EV charger (production positive): charging 2 kW every hour.
 * The week before (17–23 March, 168 hours), before the battery: grid +3 kW before noon, 0 from
 * noon; PV 0 and 2 kW; the EV charging 2 kW every hour; the battery not measured.
 * The battery's plan for the week was made the Sunday before (so it is in force at every step),
 * against 100 EUR/MWh before noon and 200 from noon. `openSite` does not fit here: the plan is
 * made on a simulated clock before the week, and the week's measurements after it, on a server
 * over the same store started again on the real clock (helpers/energyWeek.ts); the page comes
 * from the fixture's `openPage`.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
let t: TestServer;
let browser: Browser;
let page: Page;
let errors: string[];
let token: string;
let site: number;

/** The figure's value this period and the period before, as on screen. */
async function figure(name: string): Promise<[string, string]> {
  const tile = page.getByRole('group', { name, exact: true });
  return [await tile.locator('.current').innerText(), await tile.locator('.previous').innerText()];
}

/** The bars drawn: per bar its period (legend name), slot on the axis and consumed kWh, from the marks' aria labels. */
async function bars(): Promise<{ series: string; slot: string; consumed: number }[]> {
  const chart = page.locator('figure[aria-label="Energy consumed per part of the period"][data-state="ready"]');
  await chart.waitFor();
  const labels = await chart
    .locator('g.mark-rect path[aria-label]')
    .evaluateAll((nodes) => nodes.map((n) => n.getAttribute('aria-label') ?? ''));
  const field = (label: string, name: string) => new RegExp(`${name.replace(/[()]/g, '\\$&')}: ([^;]+)`).exec(label)?.[1] ?? '';
  return labels.map((l) => ({
    series: field(l, 'Period'),
    slot: field(l, 'slot'),
    consumed: Number(field(l, 'Consumed (kWh)').replace(/,/g, '').replace('\u2212', '-')),
  }));
}

beforeAll(async () => {
  if (!chromiumPath && !process.env.CI) return;
  const planned = await plannedWeek();
  token = planned.admin.token;
  site = planned.site;
  t = await measuredWeek(planned.t, token, planned.sensors);
  const before = WEEK.minus({ weeks: 1 });
  for (const [i, morning, afternoon] of [
    [0, 3, 0],
    [1, 0, 2],
    [3, -2, -2],
  ]) {
    await postHourly(t, token, planned.sensors[i], morning, afternoon, before, 168);
  }

  browser = await launchBrowser();
  ({ page, errors } = await openPage(browser, { viewport: { width: 1280, height: 900 }, timezoneId: 'America/New_York' }));
  const at = `/assets/${site}?energy=week&energy_date=2025-03-26`;
  await signIn(page, `${t.url}/signin?next=${encodeURIComponent(at)}`, planned.admin.user.email, PASSWORD);
  await page.getByRole('heading', { name: 'Energy and money per period' }).waitFor();
}, 180_000);
afterAll(async () => {
  await browser?.close();
  await t?.close();
  if (t) fs.rmSync(t.dataDir, { recursive: true, force: true });
});

run('energy and money per period on the site page (issue 33)', () => {
  it('shows the DST week beside the week before: figures, money and bars per Amsterdam day', async () => {
    await expect
      .poll(() => page.getByLabel('Period shown').innerText())
      .toMatch(/^Week 13 \(24 Mar – 30 Mar 2025\) beside Week 12 \(17 Mar – 23 Mar 2025\), times in Europe\/Amsterdam$/);
    // The week before: imported 7 × 12 × 3 = 252, exported 0, PV 7 × 12 × 2 = 168, consumed
    // 252 + 168 = 420; all PV used on site (100 %); self-sufficiency (420 − 252) / 420 = 40 %.
    expect(await figure('Imported')).toEqual(['166 kWh', 'before: 252 kWh']); // 6 × 12 × 2 + 11 × 2
    expect(await figure('Exported')).toEqual(['84 kWh', 'before: 0 kWh']); // 7 × 12 × 1
    expect(await figure('PV produced')).toEqual(['252 kWh', 'before: 168 kWh']); // 7 × 12 × 3
    expect(await figure('Consumed on site')).toEqual(['335 kWh', 'before: 420 kWh']); // 166 − 84 + 252 − (83 − 84)
    expect(await figure('Self-consumption')).toEqual(['66.7 %', 'before: 100 %']); // (252 − 84) / 252
    expect(await figure('Self-sufficiency')).toEqual(['50.4 %', 'before: 40 %']); // (335 − 166) / 335
    // Charged 6 × 12 + 11 = 83, discharged 7 × 12 = 84: 167 kWh, 167 / 2 / 10 kWh = 8.35 cycles.
    expect(await figure('Battery throughput')).toEqual(['167 kWh, 8.35 cycles', 'before: 0 kWh, 0 cycles']);
    // 167 × 2 = 334 kWh; each afternoon hour the panels' 3 kWh cover the rest of the site's
    // −1 + 3 + 1 − 2 = 1 kWh, then the car's 2: 84 × 2 = 168 kWh, 168 / 334 = 50.3 %.
    // The week before: 168 × 2 = 336 kWh; each afternoon hour the panels' 2 kWh cover the rest's
    // 0 + 2 − 0 − 2 = 0 kWh, then the car's 2: 84 × 2 = 168 kWh, 50 %.
    expect(await figure('EV energy')).toEqual(['334 kWh, 50.3 % solar', 'before: 336 kWh, 50 % solar']);
    // The grid meter at the plan's prices: 83 h importing 2 kWh at 0.1 EUR/kWh = 16.60 EUR, 84 h
    // exporting 1 kWh at 0.2 = −16.80 EUR: −0.20 EUR. Without flex the battery idles and the rest
    // of the site is the meter less the battery: 2 − 1 = 1 kWh each morning hour, 83 × 0.1 =
    // 8.30 EUR, and −1 + 1 = 0 each afternoon hour. No plan was in force the week before: no money.
    expect(await figure('Cost')).toEqual(['−€ 0.20', 'before: –']);
    expect(await figure('Cost without flex')).toEqual(['€ 8.30', 'before: –']);
    const note = await page.getByLabel('How the money is counted').innerText();
    expect(note).toMatch(/^Money in EUR over 167 of 167 planned steps measured/);
    expect(note).toContain('Cost as it was from the grid meter; without flex: the rest of the site as measured');
    // Seven bars each: Monday to Saturday 24 − 12 + 36 − 0 = 48 kWh, the 23-hour Sunday 47; the week before 36 + 24 = 60 a day.
    const drawn = await bars();
    const current = drawn.filter((b) => b.series.startsWith('Week 13'));
    expect(current.map((b) => [b.slot, b.consumed])).toEqual([
      ['Mon', 48],
      ['Tue', 48],
      ['Wed', 48],
      ['Thu', 48],
      ['Fri', 48],
      ['Sat', 48],
      ['Sun', 47],
    ]);
    expect(drawn.filter((b) => b.series.startsWith('Week 12')).map((b) => b.consumed)).toEqual([60, 60, 60, 60, 60, 60, 60]);
    await page.getByRole('heading', { name: 'Energy and money per period' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'energy-periods-week-1280');
    await page.locator('section[aria-labelledby="periods-title"]').screenshot({ path: path.join(ARTIFACTS, 'energy-periods-1280.png') });
    expect(errors).toEqual([]);
  });

  it('steps to the 23-hour Sunday by day, beside the Saturday, and downloads it as CSV', async () => {
    await page.getByRole('radiogroup', { name: 'Period' }).getByText('Day', { exact: true }).click();
    await expect.poll(() => page.getByLabel('Period shown').innerText()).toMatch(/^Wed 26 Mar 2025 beside Tue 25 Mar 2025/);
    for (let i = 0; i < 4; i++) await page.getByRole('button', { name: 'Next day' }).click();
    await expect.poll(() => page.getByLabel('Period shown').innerText()).toMatch(/^Sun 30 Mar 2025 beside Sat 29 Mar 2025/);
    expect(await figure('Imported')).toEqual(['22 kWh', 'before: 24 kWh']); // 11 × 2; 12 × 2
    expect(await figure('Consumed on site')).toEqual(['47 kWh', 'before: 48 kWh']);
    // The meter: 11 h × 2 kWh × 0.1 − 12 h × 1 kWh × 0.2 = 2.20 − 2.40 = −0.20 EUR; the Saturday
    // 12 × 2 × 0.1 − 12 × 1 × 0.2 = 0 EUR. Without flex 11 × 1 kWh × 0.1 = 1.10; 12 × 0.1 = 1.20 EUR.
    expect(await figure('Cost')).toEqual(['−€ 0.20', 'before: € 0.00']);
    expect(await figure('Cost without flex')).toEqual(['€ 1.10', 'before: € 1.20']);
    expect(await figure('EV energy')).toEqual(['46 kWh, 52.2 % solar', 'before: 48 kWh, 50 % solar']); // 24 / 46; 24 / 48
    // The Sunday's 23 Amsterdam hours (no 02:00) beside the Saturday's 24.
    const drawn = await bars();
    const sunday = drawn.filter((b) => b.series.startsWith('Sun'));
    expect(sunday).toHaveLength(23);
    expect(sunday.slice(0, 4).map((b) => b.slot)).toEqual(['00:00', '01:00', '03:00', '04:00']);
    // Before noon: 2 − 0 + 0 − 1 = 1 kWh used; from noon: −1 + 3 + 1 = 3 kWh.
    expect(sunday.map((b) => b.consumed)).toEqual([...Array(11).fill(1), ...Array(12).fill(3)]);
    expect(drawn.filter((b) => b.series.startsWith('Sat'))).toHaveLength(24);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    expect(download.suggestedFilename()).toBe('energy-day-2025-03-30.csv');
    const [header, saturday, sundayLine] = fs
      .readFileSync((await download.path())!, 'utf8')
      .trim()
      .split('\n');
    const columns = header.split(',');
    const row = (line: string) => Object.fromEntries(line.split(',').map((v, i) => [columns[i], v]));
    expect(row(sundayLine)).toMatchObject({
      period: '2025-03-30',
      hours: '23',
      imported_kwh: '22',
      consumed_kwh: '47',
      ev_solar_kwh: '24',
      currency: 'EUR',
      cost: '-0.2',
      cost_without_flex: '1.1',
      savings: '1.3',
    });
    expect(row(saturday)).toMatchObject({ period: '2025-03-29', hours: '24', imported_kwh: '24', cost: '0', savings: '1.2' });
    await screenshot(page, 'energy-periods-day-1280');
    expect(errors).toEqual([]);
  });

  it('fits a 375 px phone without sideways scrolling', async () => {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.getByRole('radiogroup', { name: 'Period' }).getByText('Week', { exact: true }).click();
    await expect.poll(() => page.getByLabel('Period shown').innerText()).toMatch(/^Week 13 \(24 Mar – 30 Mar 2025\)/);
    expect(await figure('Cost')).toEqual(['−€ 0.20', 'before: –']);
    expect((await bars()).length).toBe(14);
    const section = page.locator('section[aria-labelledby="periods-title"]');
    await section.scrollIntoViewIfNeeded();
    await screenshot(page, 'energy-periods-375');
    await section.screenshot({ path: path.join(ARTIFACTS, 'energy-periods-card-375.png') });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    const box = (await page.locator('figure[aria-label="Energy consumed per part of the period"]').boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    expect(errors).toEqual([]);
  });
});
