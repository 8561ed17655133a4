import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { chromiumPath, screenshot, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * Plain device set-up in a real Chromium: a battery and an EV charger with a weekday target
 * entered in kW, kWh and %, what the page shows was made, and what the API then stores.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;

let opened: OpenSite | undefined;
let t: TestServer;
let page: Page;
let errors: string[];
let token: string;
let email: string;
let site: number;

beforeAll(async () => {
  if (!chromiumPath && !process.env.CI) return;
  opened = await openSite({ viewport: { width: 1280, height: 900 } });
  ({ t, page, errors, token, email, site } = opened);
});
afterAll(() => opened?.close());

const form = () => page.getByRole('form', { name: 'Add a device' });

/** The rows of the "Sensors made" table, as shown. */
const sensorRows = async () => {
  const rows = page.getByRole('table', { name: 'Sensors made' }).getByRole('row');
  const texts = await rows.evaluateAll((trs) => trs.slice(1).map((tr) => [...tr.children].map((c) => (c as HTMLElement).innerText)));
  return texts;
};

/** The stored flex-model as the page lists it. */
const shownModel = async () =>
  Object.fromEntries(
    await page
      .getByRole('definition')
      .evaluateAll((dds) => dds.map((dd) => [dd.previousElementSibling?.textContent ?? '', (dd as HTMLElement).innerText])),
  );

/** The device's stored asset, with its flex-model parsed, and its sensors, read over the API. */
async function stored(assetId: number) {
  const asset = (await t.request('GET', `/api/v3_0/assets/${assetId}`, { token })).body;
  const sensors = (await t.request('GET', '/api/v3_0/sensors', { token, query: { asset_id: assetId } })).body as Record<string, unknown>[];
  return {
    parent: asset.parent_asset_id,
    flexModel: JSON.parse(asset.flex_model),
    sensors: sensors.map(({ id, name, unit, timezone, event_resolution }) => ({ id, name, unit, timezone, event_resolution })),
  };
}

run('device set-up', () => {
  it('adds a battery from the site’s page, showing a bad reserve next to its field first', async () => {
    await signIn(page, `${t.url}/signin?next=${encodeURIComponent(`/assets/${site}`)}`, email, PASSWORD);
    await page.getByRole('link', { name: 'Add device' }).click();
    await page.getByRole('heading', { name: 'Add a device' }).waitFor();

    await form().getByLabel('Kind of device').selectOption({ label: 'Battery' });
    await form().getByLabel('Name').fill('Home battery');
    expect(await form().getByLabel('Time zone').inputValue()).toBe('Europe/Amsterdam');
    await form().getByLabel('Power (kW)', { exact: true }).fill('5');
    await form().getByLabel('Capacity (kWh)').fill('10');
    await form().getByLabel('Reserve (%)').fill('100');
    await form().getByLabel('Charging efficiency (%)', { exact: true }).fill('95');
    await form().getByLabel('Discharging efficiency (%)').fill('95');
    await form().getByRole('button', { name: 'Add device' }).click();
    await form().getByText('Must be at least 0 % and below 100 %.').waitFor();
    expect(await form().getByLabel('Reserve (%)').getAttribute('aria-invalid')).toBe('true');
    expect(await t.db('generic_asset').where({ name: 'Home battery' }).first()).toBeUndefined();
    expect(errors).toEqual([expect.stringContaining('status of 422')]);
    errors.length = 0; // the browser logs the 422

    await form().getByLabel('Reserve (%)').fill('10');
    await form().getByRole('button', { name: 'Add device' }).click();
    const status = page.getByRole('region', { name: 'Device made' }).getByRole('status');
    await expect.poll(() => status.innerText()).toBe('Home battery (Battery) is set up.');
    expect(await sensorRows()).toEqual([
      ['Home battery power', 'kW', 'Europe/Amsterdam', 'PT15M'],
      ['Home battery state of charge', '%', 'Europe/Amsterdam', 'P0D'],
    ]);
    const assetId = Number((await status.getByRole('link').getAttribute('href'))!.split('/').pop());
    const { parent, flexModel, sensors } = await stored(assetId);
    expect(parent).toBe(site);
    expect(sensors.map(({ id: _, ...s }) => s)).toEqual([
      { name: 'Home battery power', unit: 'kW', timezone: 'Europe/Amsterdam', event_resolution: 'PT15M' },
      { name: 'Home battery state of charge', unit: '%', timezone: 'Europe/Amsterdam', event_resolution: 'P0D' },
    ]);
    // What was typed, with its units: 10 % of 10 kWh is a 1 kWh reserve.
    expect(flexModel).toEqual({
      'power-capacity': '5 kW',
      'soc-max': '10 kWh',
      'soc-min': '1 kWh',
      'charging-efficiency': '95%',
      'discharging-efficiency': '95%',
      'state-of-charge': { sensor: sensors[1].id },
    });
    expect(await shownModel()).toEqual({
      'power-capacity': '5 kW',
      'soc-max': '10 kWh',
      'soc-min': '1 kWh',
      'charging-efficiency': '95%',
      'discharging-efficiency': '95%',
      'state-of-charge': `sensor #${String(sensors[1].id)}`,
    });
    await screenshot(page, 'device-setup-battery');
    expect(errors).toEqual([]);
  });

  it('adds an EV charger that should be 80 % full by 07:00 on weekdays', async () => {
    await page.reload();
    await form().getByLabel('Kind of device').selectOption({ label: 'EV charger' });
    await form().getByLabel('Name').fill('Car');
    await form().getByLabel('Power (kW)', { exact: true }).fill('11');
    await form().getByLabel('Capacity (kWh)').fill('60');
    await form().getByLabel('Charging efficiency (%)', { exact: true }).fill('90');
    await form().getByLabel('Arrival SoC (%)').fill('30');
    // A one-way charger never discharges: no discharging efficiency to enter.
    expect(await form().getByLabel('Discharging efficiency (%)').count()).toBe(0);
    await form().getByRole('button', { name: 'Add a target' }).click();
    const target = form().getByRole('group', { name: 'Target 1' });
    expect(await target.getByLabel('Charge to (%)').inputValue()).toBe('80');
    expect(await target.getByLabel('By', { exact: true }).inputValue()).toBe('07:00');
    const days = target.getByRole('group', { name: 'On days' });
    const checked = async () =>
      (await days.getByRole('checkbox').evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).checked))).map(Number);
    expect(await checked()).toEqual([1, 1, 1, 1, 1, 0, 0]);
    await form().getByRole('button', { name: 'Add device' }).click();

    const made = page.getByRole('region', { name: 'Device made' });
    await expect.poll(() => made.getByRole('status').innerText()).toBe('Car (EV charger, one-way) is set up.');
    expect(await made.getByRole('list', { name: 'Charging targets' }).innerText()).toBe('80% by 07:00 on weekdays (Europe/Amsterdam)');
    const assetId = Number((await made.getByRole('status').getByRole('link').getAttribute('href'))!.split('/').pop());
    const { flexModel, sensors } = await stored(assetId);
    expect(sensors.map((s) => [s.name, s.unit, s.timezone])).toEqual([
      ['Car power', 'kW', 'Europe/Amsterdam'],
      ['Car state of charge', '%', 'Europe/Amsterdam'],
    ]);
    expect(flexModel).toEqual({
      'power-capacity': '11 kW',
      'soc-max': '60 kWh',
      'charging-efficiency': '90%',
      'production-capacity': '0 kW',
      // 30 % of 60 kWh: planned from while the car reports no SoC.
      'soc-at-arrival': '18 kWh',
      'state-of-charge': { sensor: sensors[1].id },
    });
    const targets = (await t.request('GET', `/api/v3_0/assets/${assetId}/recurring-soc-targets`, { token })).body.targets;
    expect(targets).toEqual([
      { id: expect.any(Number), days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '07:00', timezone: 'Europe/Amsterdam', value: '80%' },
    ]);
    await screenshot(page, 'device-setup-ev');
    expect(errors).toEqual([]);
  });

  it('shows the car’s targets on its page, where they are edited', async () => {
    await page.getByRole('region', { name: 'Device made' }).getByRole('status').getByRole('link', { name: 'Car' }).click();
    await page.getByRole('heading', { name: 'Car' }).waitFor();
    const list = page.getByRole('list', { name: 'Charging targets' });
    expect(await list.innerText()).toBe('80% by 07:00 on weekdays (Europe/Amsterdam)');
    await page.getByRole('button', { name: 'Edit targets' }).click();
    const target = page.getByRole('form', { name: 'Edit charging targets' }).getByRole('group', { name: 'Target 1' });
    await target.getByLabel('Charge to (%)').fill('90');
    await target.getByRole('checkbox', { name: 'Fri' }).uncheck();
    await page.getByRole('button', { name: 'Save targets' }).click();
    await expect.poll(() => list.innerText()).toBe('90% by 07:00 on Mon, Tue, Wed, Thu (Europe/Amsterdam)');
    const assetId = Number(new URL(page.url()).pathname.split('/').pop());
    const targets = (await t.request('GET', `/api/v3_0/assets/${assetId}/recurring-soc-targets`, { token })).body.targets;
    expect(targets).toEqual([
      { id: expect.any(Number), days: ['mon', 'tue', 'wed', 'thu'], time: '07:00', timezone: 'Europe/Amsterdam', value: '90%' },
    ]);
    expect(errors).toEqual([]);
  });
});
