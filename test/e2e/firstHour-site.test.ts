import path from 'node:path';
import { DateTime } from 'luxon';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { ARTIFACTS, chromiumPath, launchBrowser, screenshot, signIn } from './browser.ts';
import { openPage } from './fixture.ts';

/**
 * The operator's first hour, the site that knows its devices (issue 32): set up with a site,
 * a battery, solar panels and a car charger added through the UI; the site's Compute plans them
 * together and says that it knows no house load; a house load and a grid meter added, it plans
 * against the load. The site lists its devices, a device links back, the dashboard shows one site
 * with its devices, and names and types read as words. Browser in New York, site in Amsterdam,
 * at 1280 and 375 px; what the API stores is read back.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const ZONE = 'Europe/Amsterdam';
const OPERATOR = { email: 'op@example.com', password: 'a long secret' };

let t: TestServer;
let browser: Browser;
let token: string;
let site: number;
let batteryJob: string;

// The schedule starts at the next full hour (the panel's default): the data below cover it.
const startMs = DateTime.now().startOf('hour').plus({ hours: 1 }).toMillis();
const QUARTER = 15 * 60_000;

beforeAll(async () => {
  if (!chromiumPath && !process.env.CI) return;
  t = await startTestServer();
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await t?.close();
});

const newPage = (width: number) => openPage(browser, { viewport: { width, height: 900 }, timezoneId: 'America/New_York', timeout: 30_000 });

const api = async (path: string, query?: Record<string, string>) => {
  const res = await t.request('GET', `/api/v3_0${path}`, { token, query });
  expect(res.status).toBe(200);
  return res.body;
};
const sensorsOf = async (assetId: number) => (await api('/sensors', { asset_id: String(assetId) })) as { id: number; name: string }[];
const devices = async () =>
  ((await api('/assets')) as { id: number; name: string; parent_asset_id: number | null }[]).filter((a) => a.parent_asset_id === site);
const deviceId = async (name: string) => (await devices()).find((d) => d.name === name)!.id;

/** Adds a device on the Add device page, as a person fills it in, and waits for what was made. */
async function addDevice(page: Page, kind: string, fields: Record<string, string>, made: string) {
  await page.goto(`${t.url}/assets/${site}/add-device`);
  const form = page.getByRole('form', { name: 'Add a device' });
  await form.getByLabel('Kind of device').selectOption({ label: kind });
  for (const [label, value] of Object.entries(fields)) await form.getByLabel(label, { exact: true }).fill(value);
  expect(await form.getByLabel('Time zone').inputValue()).toBe(ZONE);
  await form.getByRole('button', { name: 'Add device' }).click();
  await expect.poll(() => page.getByRole('region', { name: 'Device made' }).getByRole('status').innerText()).toBe(made);
}

/** Presses the site's Compute and waits until its job has settled; @returns the job as the API stores it. */
async function computeSite(page: Page): Promise<{ id: string; status: string; warnings?: { code: string; message: string }[] }> {
  await page.getByRole('button', { name: 'Compute the site’s schedule' }).click();
  const link = page.getByRole('region', { name: 'Site scheduling job' }).getByRole('link').first();
  const id = await link.innerText();
  let job = await api(`/jobs/${id}`);
  for (let i = 0; i < 200 && !['finished', 'failed'].includes(job.status); i++) {
    await new Promise((r) => setTimeout(r, 100));
    job = await api(`/jobs/${id}`);
  }
  await page.getByRole('table', { name: "Each device's plan" }).waitFor();
  return { id, ...job };
}

run('the site knows its devices', () => {
  it('sets up the site, a battery, panels and a car; the site’s Compute says it knows no house load', async () => {
    const { page, errors } = await newPage(1280);
    await page.goto(`${t.url}/`);
    await page.getByLabel('Account name').fill('Keizersgracht household');
    await page.getByLabel('Administrator email').fill(OPERATOR.email);
    await page.getByLabel('Username').fill('op');
    await page.getByLabel('Password', { exact: true }).fill(OPERATOR.password);
    await page.getByLabel('Repeat the password').fill(OPERATOR.password);
    await page.getByLabel('Time zone').fill(ZONE);
    await page.getByLabel('Site name').fill('Keizersgracht');
    await page.getByRole('button', { name: 'Create account and administrator' }).click();
    await page.getByRole('heading', { name: 'Sites' }).waitFor();

    token = (await t.request('POST', '/api/requestAuthToken', { json: OPERATOR })).body.auth_token;
    const assets = (await api('/assets')) as { id: number; name: string; generic_asset_type_id: number }[];
    const types = (await api('/assets/types')) as { id: number; name: string }[];
    expect(assets.map((a) => [a.name, types.find((ty) => ty.id === a.generic_asset_type_id)?.name])).toEqual([['Keizersgracht', 'site']]);
    site = assets[0].id;

    // The tariff is another page's work: a day-ahead price with a cheap night and an expensive evening, set over the API.
    const f = factories(t.db);
    const market = await f.sensor({
      assetId: (await f.asset({ accountId: null, type: 'transmission zone' })).id,
      unit: 'EUR/MWh',
      resolutionMinutes: 60,
    });
    const dayStart = startMs - 24 * 3_600_000;
    const prices = Array.from(
      { length: 72 },
      (_, h) => [60, 60, 60, 60, 60, 60, 120, 150, 120, 90, 80, 70, 60, 60, 70, 90, 140, 220, 250, 200, 150, 110, 80, 70][h % 24],
    );
    await f.beliefs(market.id, dayStart, 3_600_000, prices, dayStart - 3_600_000);
    const patched = await t.request('PATCH', `/api/v3_0/assets/${site}`, {
      token,
      json: { flex_context: JSON.stringify({ 'consumption-price': { sensor: market.id } }) },
    });
    expect(patched.status).toBe(200);

    await page.getByRole('link', { name: 'Keizersgracht' }).click();
    await page.getByRole('heading', { name: 'Keizersgracht' }).waitFor();
    expect(await page.locator('.page-head .muted').first().innerText()).toBe('Site');
    await page.getByText('No devices yet').waitFor();

    await addDevice(
      page,
      'Battery',
      { Name: 'Home battery', 'Power (kW)': '5', 'Capacity (kWh)': '10', 'Reserve (%)': '10' },
      'Home battery (Battery) is set up.',
    );
    await addDevice(page, 'Solar panels', { Name: 'Roof PV', 'Peak power (kW)': '4' }, 'Roof PV (Solar panels) is set up.');
    await addDevice(
      page,
      'EV charger',
      { Name: 'Car charger', 'Power (kW)': '11', 'Capacity (kWh)': '60', 'Arrival SoC (%)': '30' },
      'Car charger (EV charger, one-way) is set up.',
    );
    await screenshot(page, 'firstHour-site-device-made');

    // The devices report: the battery half full at the start, the panels 3 kW for the day.
    const [, batterySoc] = await sensorsOf(await deviceId('Home battery'));
    const [pv] = await sensorsOf(await deviceId('Roof PV'));
    await f.beliefs(batterySoc.id, startMs, QUARTER, [50], Date.now() - 60_000);
    await f.beliefs(pv.id, startMs, QUARTER, new Array<number>(96).fill(3), Date.now() - 60_000);

    await page.goto(`${t.url}/assets/${site}`);
    expect(await page.getByLabel(`Start (${ZONE})`).inputValue()).toBe(
      DateTime.fromMillis(startMs, { zone: ZONE }).toFormat("yyyy-LL-dd'T'HH:mm"),
    );
    const job = await computeSite(page);
    expect(job.status).toBe('finished');
    const warning = job.warnings?.find((w) => w.code === 'load-unknown');
    expect(warning?.message).toContain('Roof PV power');
    await page
      .getByRole('region', { name: 'Warnings' })
      .getByText(/no house load/)
      .waitFor();
    await screenshot(page, 'firstHour-site-no-load');
    expect(errors).toEqual([]);
    await page.context().close();
  }, 180_000);

  it('adds the house load and grid meter; the site plans all its devices together against the load', async () => {
    const { page, errors } = await newPage(1280);
    await signIn(page, `${t.url}/signin`, OPERATOR.email, OPERATOR.password);
    await page.getByRole('heading', { name: 'Sites' }).waitFor();
    await addDevice(page, 'House load', { Name: 'House' }, 'House (House load) is set up.');
    await addDevice(page, 'Grid meter', { Name: 'Grid meter' }, 'Grid meter (Grid meter) is set up.');
    const [load] = await sensorsOf(await deviceId('House'));
    const [meter] = await sensorsOf(await deviceId('Grid meter'));
    // 1 kW of house load all day.
    await factories(t.db).beliefs(load.id, startMs, QUARTER, new Array<number>(96).fill(1), Date.now() - 60_000);
    const context = JSON.parse((await api(`/assets/${site}`)).flex_context);
    expect(context['inflexible-device-sensors']).toEqual([(await sensorsOf(await deviceId('Roof PV')))[0].id, load.id]);
    expect(context['aggregate-power']).toEqual({ sensor: meter.id });

    // The site lists its devices with links, their types and sensors by name.
    await page.goto(`${t.url}/assets/${site}`);
    const table = page.getByRole('table', { name: 'Devices' });
    await table.getByRole('link', { name: 'Grid meter', exact: true }).waitFor();
    const rows = await table
      .getByRole('row')
      .evaluateAll((trs) => trs.slice(1).map((tr) => (tr as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));
    expect(rows).toEqual([
      'Home battery Battery Home battery power kW Home battery state of charge % Scheduled',
      'Roof PV Solar panels Roof PV power kW Planned around (production)',
      'Car charger EV charger, one-way Car charger power kW Car charger state of charge % Scheduled',
      'House House load House power kW Planned around (consumption)',
      'Grid meter Grid meter Grid meter power kW Site power at the grid connection',
    ]);
    // A device links up to its site.
    await table.getByRole('link', { name: 'Home battery', exact: true }).click();
    await page.getByRole('heading', { name: 'Home battery' }).waitFor();
    await page.getByRole('link', { name: 'Keizersgracht' }).click();
    await page.getByRole('heading', { name: 'Keizersgracht' }).waitFor();

    const job = await computeSite(page);
    expect(job.status).toBe('finished');
    expect((job.warnings ?? []).map((w) => w.code)).not.toContain('load-unknown');
    batteryJob = job.id;
    const plans = page.getByRole('table', { name: "Each device's plan" }).getByRole('rowheader');
    expect(await plans.allInnerTexts()).toEqual(['Home battery', 'Car charger']);
    await screenshot(page, 'firstHour-site-1280');
    // The site's head and its devices, as one screen shows them (for the README).
    await page.getByRole('heading', { name: 'Devices' }).scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(ARTIFACTS, 'firstHour-site-devices.png') });

    // Each scheduled device's plan is stored on its power sensor: 24 h of quarter hours.
    const battery = (await sensorsOf(await deviceId('Home battery')))[0];
    const car = (await sensorsOf(await deviceId('Car charger')))[0];
    const query = { duration: 'PT24H', unit: 'kW', 'sign-convention': 'consumption-positive' };
    const stored = await api(`/sensors/${battery.id}/schedules/${job.id}`, query);
    expect(stored.values).toHaveLength(96);
    // Within the battery's 5 kW either way.
    for (const v of stored.values as number[]) expect(Math.abs(v)).toBeLessThanOrEqual(5 + 1e-6);
    const carPlan = await api(`/sensors/${car.id}/schedules/${job.id}`, query);
    expect(carPlan.values).toHaveLength(96);
    // A one-way charger never feeds the site: never below zero, consumption positive; at most its 11 kW.
    for (const v of carPlan.values as number[]) expect(v).toBeGreaterThanOrEqual(-1e-6);
    for (const v of carPlan.values as number[]) expect(v).toBeLessThanOrEqual(11 + 1e-6);
    expect(errors).toEqual([]);
    await page.context().close();
  }, 180_000);

  it('shows one site with its devices on the dashboard, not devices as sites', async () => {
    const { page, errors } = await newPage(1280);
    await signIn(page, `${t.url}/signin`, OPERATOR.email, OPERATOR.password);
    const own = page.getByRole('region', { name: 'Your account' });
    const list = own.getByRole('list', { name: 'Devices of Keizersgracht' });
    await list.getByRole('link', { name: 'Grid meter' }).waitFor();
    expect(await own.getByRole('row').count()).toBe(2); // the heading row and the site's
    expect(await list.getByRole('listitem').allInnerTexts()).toEqual([
      'Home battery Battery',
      'Roof PV Solar panels',
      'Car charger EV charger, one-way',
      'House House load',
      'Grid meter Grid meter',
    ]);
    await expect.poll(() => own.getByRole('row').nth(1).getByRole('cell').first().innerText()).toBe('Site');
    await screenshot(page, 'firstHour-site-dashboard');
    expect(errors).toEqual([]);
    await page.context().close();
  }, 60_000);

  it('works at 375 px: the site, its devices and Compute without sideways scrolling', async () => {
    const { page, errors } = await newPage(375);
    await signIn(page, `${t.url}/signin`, OPERATOR.email, OPERATOR.password);
    await page.getByRole('region', { name: 'Your account' }).getByRole('link', { name: 'Keizersgracht' }).click();
    await page.getByRole('heading', { name: 'Keizersgracht' }).waitFor();
    await page.getByRole('table', { name: 'Devices' }).waitFor();
    const job = await computeSite(page);
    // Nothing changed since: the same job answers.
    expect(job.id).toBe(batteryJob);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'firstHour-site-375');
    await page.getByRole('table', { name: 'Devices' }).getByRole('link', { name: 'Car charger', exact: true }).click();
    await page.getByRole('link', { name: 'Keizersgracht' }).waitFor();
    expect(errors).toEqual([]);
    await page.context().close();
  }, 120_000);
});
