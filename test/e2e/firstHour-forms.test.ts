import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import path from 'node:path';
import { ARTIFACTS, chromiumPath, screenshot, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * The schedule form in the operator's first hour, in a browser in New York for a site in
 * Amsterdam, at 1280 and 375 px: a battery made by the device set-up computes at the first press
 * (its "1 kWh" reserve is read as the server reads it); three bad fields show three messages at
 * once and queue nothing; a car plugged in at 30 % is planned to its recurring 80 % by 07:00; a
 * key added in the settings editor survives "Save as this asset's defaults"; the focus moves to
 * the result after Compute, and "Skip to Compute" is among the first Tab stops.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const SITE_ZONE = 'Europe/Amsterdam';
const JOB_WAIT = 60_000;

let t: TestServer;

/** A device made as the device set-up makes it, with its power sensor. */
async function setUpDevice(token: string, site: number, json: Record<string, unknown>) {
  const made = await t.request('POST', `/api/v3_0/assets/${site}/devices`, { token, json: { timezone: SITE_ZONE, ...json } });
  expect(made.status).toBe(201);
  const sensors = made.body.sensors as { id: number; unit: string }[];
  return { asset: made.body.asset.id as number, power: sensors.find((s) => s.unit === 'kW')!.id };
}

run.each([1280, 375])('the schedule form at %i px', (width) => {
  let opened: OpenSite | undefined;
  let page: Page;
  let errors: string[];
  let token: string;
  let accountId: number;
  let battery: { asset: number; power: number };
  let car: { asset: number; power: number };

  beforeAll(async () => {
    opened = await openSite({ viewport: { width, height: 900 }, timezoneId: 'America/New_York', zone: SITE_ZONE });
    ({ t, page, errors, token, accountId } = opened);
    const { site } = opened;
    // A flat tariff on the site, which its devices' schedules inherit.
    const priced = await t.request('PATCH', `/api/v3_0/assets/${site}`, {
      token,
      json: { flex_context: JSON.stringify({ 'consumption-price': '0.25 EUR/kWh' }) },
    });
    expect(priced.status).toBe(200);
    battery = await setUpDevice(token, site, {
      kind: 'battery',
      name: 'Home battery',
      power: '5 kW',
      capacity: '10 kWh',
      soc_min: '10%',
      charging_efficiency: '95%',
      discharging_efficiency: '95%',
    });
    car = await setUpDevice(token, site, {
      kind: 'ev-charger',
      name: 'Car',
      power: '11 kW',
      capacity: '60 kWh',
      bidirectional: false,
      soc_targets: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], time: '07:00', value: '80%' }],
    });
    await signIn(page, `${t.url}/signin?next=${encodeURIComponent(`/assets/${battery.asset}`)}`, opened.email, PASSWORD);
    await page.getByRole('heading', { name: 'Home battery' }).waitFor();
  });
  afterAll(() => opened?.close());

  const panel = () => page.locator('.schedule-panel');
  const jobs = async () => (await t.request('GET', '/api/v3_0/jobs', { token, query: { account_id: accountId } })).body as { id: string }[];
  const computed = async () => {
    await panel().getByRole('button', { name: 'Compute schedule' }).click();
    await panel()
      .locator('.job-state .badge.finished', { hasText: /^Finished$/ })
      .waitFor({ timeout: JOB_WAIT });
    const id = /[0-9a-f-]{36}/.exec((await panel().locator('.job-state > p > code').textContent())!)![0];
    return (await t.request('GET', `/api/v3_0/jobs/${id}`, { token })).body;
  };

  it(
    "computes a set-up battery at the first press, its '1 kWh' reserve as stored, and moves the focus to the result",
    async () => {
      expect(await panel().getByLabel('SoC minimum (kWh)').inputValue()).toBe('1 kWh');
      expect(await panel().getByLabel('SoC maximum (kWh)').inputValue()).toBe('10 kWh');
      // Nothing measured yet: the operator says where the battery stands.
      await panel().getByLabel('SoC at start (kWh)').fill('5');
      const job = await computed();
      expect(job.status).toBe('finished');
      const device = job.result.devices[0];
      // 1 kWh and 10 kWh as the limits the job kept, 5 kWh where it started.
      expect([device.soc_min_mwh, device.soc_max_mwh, device.soc_mwh[0]]).toEqual([0.001, 0.01, 0.005]);
      expect(await panel().locator('.field-error').count()).toBe(0);
      const focused = await page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
      expect(focused).toBe('Scheduling job');
      await screenshot(page, `firstHour-forms-battery-${width}`);
      expect(errors).toEqual([]);
    },
    JOB_WAIT + 20_000,
  );

  it('shows three bad fields at once and queues no job', async () => {
    await page.reload();
    const before = await jobs();
    await panel().getByLabel('Power capacity (kW)').fill('-5');
    await panel().getByLabel('SoC at start (kWh)').fill('11');
    await panel().getByLabel('SoC minimum (kWh)').fill('a lot');
    await panel().getByRole('button', { name: 'Compute schedule' }).click();
    const messages = panel().locator('.field-error');
    await expect.poll(() => messages.count()).toBe(3);
    expect(await messages.allInnerTexts()).toEqual([
      'Must not exceed the SoC maximum (10 kWh).',
      'Cannot convert value `a lot` to an energy; write a number in kWh, or one with its unit, e.g. 10 kWh.',
      'Must be greater than or equal to 0.',
    ]);
    expect(await panel().getByLabel('Power capacity (kW)').getAttribute('aria-invalid')).toBe('true');
    expect(await jobs()).toEqual(before);
    await screenshot(page, `firstHour-forms-errors-${width}`);
    // The flex-model's fields up close, each message under its field.
    await panel()
      .locator('fieldset')
      .first()
      .screenshot({ path: path.join(ARTIFACTS, `firstHour-forms-errors-close-${width}.png`) });
    expect(errors).toEqual([]);
  });

  it("keeps a key added in the settings editor when the schedule panel's defaults are saved", async () => {
    await page.reload();
    const stored = page.locator('section[aria-label="Stored flex-model"]');
    await stored.getByLabel('New flex-model key').fill('storage-efficiency');
    await stored.getByLabel('New flex-model value').fill('99.9%');
    await page.getByRole('form', { name: 'Stored flex settings' }).getByRole('button', { name: 'Save settings' }).click();
    await stored.locator('dt', { hasText: 'storage-efficiency' }).waitFor();
    // The schedule form follows what is now stored, without a reload.
    await expect.poll(() => panel().getByLabel('Storage efficiency (%)').inputValue()).toBe('99.9');
    await panel().getByRole('button', { name: "Save as this asset's defaults" }).click();
    await panel().getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const asset = (await t.request('GET', `/api/v3_0/assets/${battery.asset}`, { token })).body;
    expect(JSON.parse(asset.flex_model)).toMatchObject({ 'storage-efficiency': '99.9%', 'soc-min': '1 kWh', 'soc-max': '10 kWh' });
    expect(errors).toEqual([]);
  });

  it('reaches "Skip to Compute" among the first Tab stops of the page', async () => {
    await page.reload();
    await panel().getByLabel('Power capacity (kW)').waitFor();
    let tabs = 0;
    const activeText = () => page.evaluate(() => document.activeElement?.textContent ?? '');
    while (tabs < 15 && (await activeText()) !== 'Skip to Compute') {
      await page.keyboard.press('Tab');
      tabs++;
    }
    // Skip to content, the brand, the menu (its button at 375 px) and who is signed in come first.
    expect(await activeText()).toBe('Skip to Compute');
    expect(tabs).toBeLessThanOrEqual(10);
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('compute-schedule');
    expect(errors).toEqual([]);
  });

  it('says which field is wrong when a charging target has no day, and stores nothing', async () => {
    await page.goto(`${t.url}/assets/${car.asset}`);
    await page.getByRole('button', { name: 'Edit targets' }).click();
    const target = page.getByRole('form', { name: 'Edit charging targets' }).getByRole('group', { name: 'Target 1' });
    for (const day of ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']) await target.getByRole('checkbox', { name: day }).uncheck();
    await page.getByRole('button', { name: 'Save targets' }).click();
    await target.getByText('Choose at least one day on which to reach this target.').waitFor();
    const stored = (await t.request('GET', `/api/v3_0/assets/${car.asset}/recurring-soc-targets`, { token })).body.targets;
    expect(stored.map((x: { days: string[] }) => x.days)).toEqual([['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']]);
    expect(errors).toEqual([expect.stringContaining('status of 422')]);
    errors.length = 0; // the browser logs the 422
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it(
    'plans a car plugged in at 30 % to its recurring 80 % by 07:00, the SoC given stored with the job',
    async () => {
      await page.goto(`${t.url}/assets/${car.asset}`);
      await panel().getByLabel('Plugged in now, SoC (%)').waitFor();
      expect(await panel().getByRole('note', { name: 'Charging targets planned for' }).innerText()).toContain(
        '80% by 07:00 on every day (Europe/Amsterdam)',
      );
      const midnight = DateTime.now().setZone(SITE_ZONE).plus({ days: 1 }).startOf('day');
      await panel().getByLabel(`Start (${SITE_ZONE})`).fill(midnight.toFormat("yyyy-MM-dd'T'HH:mm"));
      await panel().getByLabel('Duration', { exact: true }).fill('PT12H');
      await panel().getByLabel('Plugged in now, SoC (%)').fill('30');
      const job = await computed();
      expect(job.status).toBe('finished');
      const device = job.result.devices[0];
      // 80 % of 60 kWh = 48 kWh by 07:00 in Amsterdam, the 28th quarter-hour boundary after midnight.
      const sevenMs = midnight.set({ hour: 7 }).toMillis();
      expect(device.soc_targets).toEqual([{ valueMwh: 0.048, atMs: sevenMs }]);
      // 30 % of 60 kWh = 18 kWh at the start; 48 − 18 = 30 kWh charged before 07:00 (no losses entered).
      expect(device.soc_mwh[0]).toBeCloseTo(0.018, 9);
      const charged = device.power_mw.slice(0, 28).reduce((sum: number, mw: number) => sum + Math.abs(mw) * 250, 0);
      expect(charged).toBeGreaterThanOrEqual(30 - 1e-6);
      expect(device.soc_mwh[28]).toBeGreaterThanOrEqual(0.048 - 1e-9);
      await screenshot(page, `firstHour-forms-car-${width}`);
      await panel().screenshot({ path: path.join(ARTIFACTS, `firstHour-forms-car-panel-${width}.png`) });
      expect(errors).toEqual([]);
    },
    JOB_WAIT + 20_000,
  );
});
