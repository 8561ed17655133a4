import { DateTime } from 'luxon';
import { afterEach, describe, expect, it } from 'vitest';
import { PASSWORD } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { chartValues, chromiumPath, screenshot, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * The operator's first hour with tariffs (issue 32), in a real Chromium at 1280 and 375 px, the
 * browser in New York and the site in Amsterdam: a fresh site makes its price sensor from the
 * tariff form, a tariff entered in EUR/kWh is listed in EUR/kWh (and written as EUR/MWh), an empty
 * peak window is refused storing nothing, a correction shows one series with the corrected price,
 * a deletion withdraws the prices, and the ENTSO-E section lists zones and says whether a token is set.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const SITE_ZONE = 'Europe/Amsterdam';

let opened: OpenSite | undefined;
let t: TestServer;
let token: string;

afterEach(async () => {
  await opened?.close();
  opened = undefined;
});

const api = async (path: string, query?: Record<string, string>) => (await t.request('GET', `/api/v3_0${path}`, { token, query })).body;

/** Today in the site's zone, as the chart and the stored prices are asked for. */
const today = () => {
  const start = DateTime.now().setZone(SITE_ZONE).startOf('day');
  return { event_starts_after: start.toISO()!, event_ends_before: start.plus({ days: 1 }).toISO()! };
};

/**
 * Today's hourly prices in EUR/MWh for a base and an every-day peak window (local hours), as the
 * tariff's rule reads: the peak price where from ≤ hour < until, else the base.
 */
function expectedDay(base: number, peak: number, fromHour: number, untilHour: number): number[] {
  const start = DateTime.now().setZone(SITE_ZONE).startOf('day');
  const out: number[] = [];
  for (let h = start; h < start.plus({ days: 1 }); h = h.plus({ hours: 1 }))
    out.push(h.hour >= fromHour && h.hour < untilHour ? peak : base);
  return out;
}

const storedToday = async (sensor: number) =>
  ((await api(`/sensors/${sensor}/chart_data/`, today())) as { event_value: number; source: string }[]).map((r) => r.event_value);

async function walk(width: number): Promise<void> {
  // The operator's profile is in the site's zone; the browser is not.
  opened = await openSite({ viewport: { width, height: 900 }, timezoneId: 'America/New_York', zone: SITE_ZONE });
  ({ t, token } = opened);
  const { page, errors, site } = opened;
  await signIn(page, `${t.url}/signin?next=${encodeURIComponent(`/assets/${site}/now`)}`, opened.email, PASSWORD);

  // A fresh site: the form says why it cannot be used yet and offers to make the price sensor.
  const none = page.getByRole('region', { name: 'No price sensor' });
  await none.getByText('This site has no price sensor yet').waitFor();
  await screenshot(page, `firstHour-tariffs-${width}-fresh`);
  await none.getByRole('button', { name: 'Make a price sensor' }).click();
  const form = page.getByRole('form', { name: 'Add a tariff' });
  await expect.poll(() => form.getByLabel('Price sensor', { exact: true }).inputValue()).not.toBe('');
  const [priceSensor] = (await api('/sensors', { asset_id: String(site) })) as {
    id: number;
    name: string;
    unit: string;
    timezone: string;
  }[];
  expect(priceSensor).toMatchObject({ name: 'Electricity price', unit: 'EUR/MWh', timezone: SITE_ZONE });

  // A peak of 07:00–07:00 covers no time: refused, with the reason at the field, and nothing stored.
  await form.getByLabel('Tariff name').fill('Home tariff');
  await form.getByLabel('Prices in').selectOption('EUR/kWh');
  await form.getByLabel('Base price').fill('0.30');
  await form.getByLabel('Peak price').fill('0.40');
  await form.getByLabel('Peak days').selectOption({ label: 'Every day' });
  await form.getByLabel('Peak from').fill('07:00');
  await form.getByLabel('Peak until').fill('07:00');
  await form.getByRole('button', { name: 'Add tariff' }).click();
  // Under the field it is about, "Peak until".
  const untilField = form.locator('.field.invalid').filter({ has: page.getByLabel('Peak until') });
  await untilField.locator('.field-error', { hasText: 'Ends when it starts (07:00–07:00) and so covers no time' }).waitFor();
  await screenshot(page, `firstHour-tariffs-${width}-empty-window`);
  expect(await api(`/assets/${site}/tariffs`)).toEqual([]);
  expect(await storedToday(priceSensor.id)).toEqual([]);

  // 07:00–21:00: saved, listed in the unit entered, written in the sensor's (0.30 EUR/kWh = 300 EUR/MWh, 0.40 = 400).
  await form.getByLabel('Peak until').fill('21:00');
  await form.getByRole('button', { name: 'Add tariff' }).click();
  await form.getByRole('status').filter({ hasText: 'Tariff saved' }).waitFor();
  const listed = page.getByRole('list', { name: 'Tariffs' }).getByRole('listitem', { name: 'Home tariff' });
  await listed.getByText('Every day 07:00–21:00: 0.4 EUR/kWh').waitFor();
  await listed.getByText('Base 0.3 EUR/kWh').waitFor();
  const [stored] = await api(`/assets/${site}/tariffs`);
  expect(stored.definition).toMatchObject({
    unit: 'EUR/kWh',
    price: 0.3,
    periods: [{ days: 'all', from: '07:00', to: '21:00', price: 0.4 }],
  });
  expect(await storedToday(priceSensor.id)).toEqual(expectedDay(300, 400, 7, 21));

  // Corrected: the peak is 17:00–21:00 at 0.35 EUR/kWh (350 EUR/MWh).
  await listed.getByRole('button', { name: 'Correct Home tariff' }).click();
  const correction = page.getByRole('form', { name: 'Correct tariff Home tariff' });
  await correction.getByLabel('Peak price').fill('0.35');
  await correction.getByLabel('Peak from').fill('17:00');
  await correction.getByRole('button', { name: 'Save correction' }).click();
  await listed.getByText('Every day 17:00–21:00: 0.35 EUR/kWh').waitFor();
  await screenshot(page, `firstHour-tariffs-${width}-corrected`);
  const corrected = expectedDay(300, 350, 17, 21);
  expect((await api(`/assets/${site}/tariffs`))[0].definition.periods).toEqual([{ days: 'all', from: '17:00', to: '21:00', price: 0.35 }]);
  expect(await storedToday(priceSensor.id)).toEqual(corrected);

  // The price sensor's chart: one value per hour of today, the corrected ones, from one source.
  await page.goto(`${t.url}/sensors/${priceSensor.id}`);
  await expect.poll(() => chartValues(page, 'Sensor chart', 'Value'), { timeout: 20_000 }).toEqual(corrected);
  await expect(page.getByLabel('Data sources').textContent()).resolves.toMatch(/^Data from Flexsite tariff \(reporter tariff \d+\)\.$/);
  await screenshot(page, `firstHour-tariffs-${width}-chart`);

  // Deleted: the list is empty, and today's prices are withdrawn, so no schedule uses them.
  await page.goto(`${t.url}/assets/${site}/now`);
  await listed.getByRole('button', { name: 'Delete Home tariff' }).click();
  await listed.getByRole('button', { name: 'Confirm delete' }).click();
  await page.getByRole('list', { name: 'Tariffs' }).waitFor({ state: 'detached' });
  expect(await api(`/assets/${site}/tariffs`)).toEqual([]);
  expect(await storedToday(priceSensor.id)).toEqual([]);

  // The ENTSO-E connector: zones listed, the token's state said (this server has none).
  const dayAhead = page.getByRole('region', { name: 'Day-ahead prices' });
  await dayAhead.getByText('Token: not configured').waitFor();
  await expect(dayAhead.getByLabel('Bidding zone').locator('option').allTextContents()).resolves.toEqual(
    expect.arrayContaining(['Netherlands', 'Germany–Luxembourg', 'Belgium']),
  );
  expect(await api('/price-connectors/platform')).toEqual({ token_configured: false });
  // The price sensor is free again: a connector may follow the Dutch zone there, and says why it fetched nothing.
  await dayAhead.getByLabel('Bidding zone').selectOption({ label: 'Netherlands' });
  await dayAhead.getByLabel('Write to price sensor').selectOption({ label: 'Electricity price (EUR/MWh)' });
  await dayAhead.getByRole('button', { name: 'Add connector' }).click();
  await dayAhead
    .getByRole('list', { name: 'Price connectors' })
    .getByText('Netherlands → Electricity price: Last fetch failed: no ENTSO-E token is set')
    .waitFor();
  expect(await api(`/assets/${site}/price-connectors`)).toEqual([
    expect.objectContaining({
      sensor: priceSensor.id,
      bidding_zone: '10YNL----------L',
      last_written_at: null,
      last_error: expect.stringMatching(/^no ENTSO-E token is set/),
    }),
  ]);
  await screenshot(page, `firstHour-tariffs-${width}-entsoe`);
  // Nothing on the page runs wider than the screen.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  // The one refusal is the empty window's 422.
  expect(errors).toEqual(['Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)']);
}

run('tariffs in the first hour (issue 32)', () => {
  it('at 1280 px: make a price sensor, refuse an empty window, add in EUR/kWh, correct, see one series, delete; ENTSO-E zones and token', async () => {
    await walk(1280);
  }, 120_000);
  it('at 375 px: the same walk on a phone', async () => {
    await walk(375);
  }, 120_000);
});
