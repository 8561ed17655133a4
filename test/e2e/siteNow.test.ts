import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, factories } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { chromiumPath, screenshot, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * The cockpit's "Site now" page in a real Chromium, on data posted through the API: the latest
 * value of each sensor with its health, a new value appearing by polling, and a stale sensor's
 * notification acknowledged from the page.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const Q = 15 * 60_000;
const H = 3600_000;

let opened: OpenSite | undefined;
let t: TestServer;
let page: Page;
let errors: string[];
let token: string;
let email: string;
let accountId: number;
let site: number;
let grid: number;
let soc: number;

beforeAll(async () => {
  if (!chromiumPath && !process.env.CI) return;
  opened = await openSite();
  ({ t, page, errors, token, email, accountId, site } = opened);
  const f = factories(t.db);
  grid = (await f.sensor({ assetId: site, unit: 'kW', resolutionMinutes: 15, name: 'grid power' })).id;
  soc = (await f.sensor({ assetId: site, unit: '%', resolutionMinutes: 60, name: 'battery SoC' })).id;
  await f.sensor({ assetId: site, unit: 'kW', resolutionMinutes: 15, name: 'PV power' });
});
afterAll(() => opened?.close());

const post = (sensorId: number, startMs: number, values: number[], duration: string, unit: string) =>
  t.request('POST', `/api/v3_0/sensors/${sensorId}/data`, {
    token,
    json: { values, start: new Date(startMs).toISOString(), duration, unit },
  });

/** The cells of a sensor's row, as shown. */
const row = (name: string) =>
  page
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name }) })
    .getByRole('cell')
    .allInnerTexts();

run('site now', () => {
  it('shows each sensor’s latest value and health, and new values as they arrive', async () => {
    const quarter = Math.floor(Date.now() / Q) * Q;
    const hour = Math.floor(Date.now() / H) * H;
    expect((await post(grid, quarter - 2 * Q, [1.5, 2.5], 'PT30M', 'kW')).status).toBe(200);
    expect((await post(soc, hour - 4 * H, [55], 'PT1H', '%')).status).toBe(200);

    await signIn(page, `${t.url}/signin?next=${encodeURIComponent(`/assets/${site}/now`)}`, email, PASSWORD);
    await page.getByRole('heading', { name: 'Site now' }).waitFor();
    await page.getByRole('table', { name: 'Sensors now' }).waitFor();
    await expect.poll(() => page.getByRole('status', { name: 'Updated' }).innerText()).toMatch(/^Updated \d\d:\d\d:\d\d$/);

    // Asset, latest, age, health, gaps today, last upload.
    const gridCells = await row('grid power');
    // Power says which way is positive (issue 32: the sign beside every number).
    expect(gridCells.slice(0, 2)).toEqual(['Home', '2.5 kW, production positive']);
    expect(gridCells[3]).toBe('OK');
    expect(gridCells[5]).toMatch(/ by /);
    const socCells = await row('battery SoC');
    expect(socCells.slice(0, 2)).toEqual(['Home', '55 %']);
    // Stale as a problem: a sign and the word, with the silence an hourly sensor is allowed (issue 32 changes this cell).
    expect(socCells[3]).toBe('⚠ Stale over 2 h without data');
    expect(await row('PV power')).toEqual(['Home', '–', '–', 'No data', expect.stringMatching(/^\d+$/), '–']);
    await screenshot(page, 'site-now');

    // A new grid value shows by itself, on the next poll.
    expect((await post(grid, quarter, [3.5], 'PT15M', 'kW')).status).toBe(200);
    await expect.poll(async () => (await row('grid power'))[1], { timeout: 25_000, interval: 500 }).toBe('3.5 kW, production positive');
    expect(errors).toEqual([]);
  });

  it('lists what needs attention and acknowledges it', async () => {
    // The SoC sensor is stale: the check raises its notification.
    expect(await t.server.attention.checkStale(Date.now())).toBe(1);
    await page.reload();
    const item = page.getByRole('list', { name: 'Notifications' }).getByRole('listitem');
    await expect.poll(() => item.count()).toBe(1);
    // Named by its device and name; an hourly sensor is stale after twice its hour.
    expect(await item.innerText()).toMatch(/Home battery SoC has had no data since .*; it counts as stale after 2 h without data\./);
    await item.getByRole('button', { name: 'Acknowledge' }).click();
    await page.getByText('Nothing needs attention.').waitFor();
    const [stored] = await t.db('notification').where({ sensor_id: soc });
    expect(stored.acknowledged_at).not.toBeNull();
    expect(errors).toEqual([]);
  });

  it('shows what this month’s schedules cost against doing nothing', async () => {
    const f = factories(t.db);
    const market = await f.asset({ accountId: null, type: 'transmission zone' });
    const prices = (await f.sensor({ assetId: market.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id;
    // The plan is for the next two hours: a plan counts for the steps that start after it is made.
    const next = Math.ceil(Date.now() / H) * H;
    await f.beliefs(prices, next, H, [50, 100], next - 86_400_000);
    const batteryAsset = (await f.asset({ accountId, type: 'battery' })).id;
    await t.db('generic_asset').where({ id: batteryAsset }).update({ parent_asset_id: site });
    const battery = (await f.sensor({ assetId: batteryAsset, unit: 'MW', resolutionMinutes: 60, name: 'battery power' })).id;
    const trigger = await t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
      token,
      json: {
        start: new Date(next).toISOString(),
        duration: 'PT2H',
        'flex-model': {
          'soc-at-start': 0,
          'soc-unit': 'MWh',
          'soc-min': 0,
          'soc-max': 1,
          'roundtrip-efficiency': 1,
          'power-capacity': '1 MW',
        },
        'flex-context': { 'consumption-price-sensor': prices, 'site-power-capacity': '1 MW' },
      },
    });
    expect(trigger.status).toBe(200);
    await expect
      .poll(async () => (await t.request('GET', `/api/v3_0/jobs/${trigger.body.schedule}`, { token })).body.status, { timeout: 20_000 })
      .toBe('finished');
    await page.reload();
    // Charge 1 MW at 50 EUR/MWh, discharge 1 MW at 100: −50 EUR; an idle battery costs 0; nothing measured yet.
    // The plan's steps are still ahead: they count as the rest of the month (issue 32).
    const card = page.getByLabel('Money this month');
    await card.waitFor();
    expect(await page.getByLabel('Rest of the month', { exact: true }).innerText()).toBe(
      'Rest of the month, as the plan in force now says\nearns € 50.00; saves € 50.00',
    );
    expect(await page.getByLabel('Realised so far', { exact: true }).innerText()).toBe(
      'Nothing measured yet: realised figures follow the devices’ measurements.',
    );
    await screenshot(page, 'site-now-money');
    expect(errors).toEqual([]);
  });

  it('takes a time-of-use tariff in a form, which the server writes ahead as prices', async () => {
    const f = factories(t.db);
    const priceSensor = (name: string) =>
      f.sensor({ assetId: site, unit: 'EUR/MWh', resolutionMinutes: 60, timezone: 'Europe/Amsterdam', name });
    const consumption = (await priceSensor('consumption price')).id;
    const feedIn = (await priceSensor('feed-in price')).id;
    await page.reload();
    const form = page.getByRole('form', { name: 'Add a tariff' });
    await form.getByLabel('Tariff name').fill('Home tariff');
    await form.getByLabel('Price sensor', { exact: true }).selectOption({ label: 'consumption price (EUR/MWh)' });
    await form.getByLabel('Base price').fill('200');
    await form.getByLabel('Peak price').fill('300');
    await form.getByLabel('Peak from').fill('07:00');
    await form.getByLabel('Peak until').fill('23:00');
    await form.getByLabel('Feed-in price sensor').selectOption({ label: 'feed-in price (EUR/MWh)' });
    await form.getByLabel('Feed-in price', { exact: true }).fill('70');
    await form.getByRole('button', { name: 'Add tariff' }).click();
    await form.getByRole('status').filter({ hasText: 'Tariff saved' }).waitFor();
    await page.getByRole('list', { name: 'Tariffs' }).getByText('Home tariff').waitFor();

    // Written ahead from midnight on Friday 2 July 2027 (the user's zone, Amsterdam): three days on both sensors.
    expect(await t.server.tariffs.tick(Date.parse('2027-07-02T00:00:00+02:00'))).toBe(2 * 72);
    const values = async (sensorId: number) =>
      // The last three days: saving the tariff already wrote today's prices (the real date, before July 2027).
      (await t.db('timed_belief').where({ sensor_id: sensorId }).orderBy('event_start'))
        .map((r: { event_value: number }) => r.event_value)
        .slice(-72);
    // Friday: 200 until 07:00, the weekday peak 300 until 23:00, then 200; the weekend all 200.
    const friday = [...Array(7).fill(200), ...Array(16).fill(300), 200];
    expect(await values(consumption)).toEqual([...friday, ...Array(48).fill(200)]);
    expect(await values(feedIn)).toEqual(Array(72).fill(70));
    expect(errors).toEqual([]);
  });
});
