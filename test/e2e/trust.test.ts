import fs from 'node:fs';
import path from 'node:path';
import { DateTime } from 'luxon';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { factories, PASSWORD } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { ARTIFACTS, chromiumPath, consoleWarnings, screenshot, screenshotOnFailure, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * Issue 21, as the operator meets it: the screen says what the schedule really is. Settings the
 * form does not show survive a save; a bare power is taken in the kW shown; prices that end
 * inside the window are extended *and said so* (amber, on every page a job appears); the
 * server's charts draw across the plot with a time axis and no Vega warnings.
 */

const ZONE = 'Europe/Amsterdam';
const STEP = 90_000;
/** Tomorrow in the site's zone, or the day after when tomorrow has a daylight-saving change. */
const tomorrow = ((day: DateTime) => (day.plus({ days: 1 }).diff(day, 'hours').hours === 24 ? day : day.plus({ days: 1 })))(
  DateTime.now().setZone(ZONE).plus({ days: 1 }).startOf('day'),
);
/** Prices for the first 12 hours of the day only: the second half of a 24-hour schedule is unknown. */
const PRICES = Array.from({ length: 12 }, (_, h) => (h < 6 ? 20 + h : 80 + h));

const run = chromiumPath || process.env.CI ? describe : describe.skip;

let opened: OpenSite | undefined;
let t: TestServer;
let page: Page;
let errors: string[];
let warnings: string[];
let email: string;
let token: string;
let assetId: number;
let priceId: number;
let jobId: string;

beforeAll(async () => {
  if (!chromiumPath && !process.env.CI) return;
  // The zone chosen at set-up.
  opened = await openSite({ zone: ZONE, account: 'Trust site', site: { type: 'battery', name: 'Home battery' } });
  ({ t, page, errors, email, token, site: assetId } = opened);
  warnings = consoleWarnings(page);
  const f = factories(t.db);
  await f.sensor({ assetId, name: 'battery power', unit: 'kW', resolutionMinutes: 60, timezone: ZONE });
  priceId = (await f.sensor({ assetId, name: 'day-ahead prices', unit: 'EUR/MWh', resolutionMinutes: 60, timezone: ZONE })).id;
  await f.beliefs(priceId, tomorrow.toMillis(), 3_600_000, PRICES, Date.now() - 3_600_000);
  // Stored over the API: keys the schedule form does not show, which a save must keep.
  const patched = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, {
    token,
    json: {
      flex_context: JSON.stringify({
        'relax-constraints': true,
        'soc-minima-breach-price': '1000 EUR/MWh',
        commitments: [{ name: 'grid fee', baseline: '0 kW', 'up-price': '10 EUR/MWh' }],
      }),
    },
  });
  expect(patched.status).toBe(200);

  await signIn(page, t.url + '/signin', email, PASSWORD);
  await page.getByRole('heading', { name: 'Sites' }).waitFor();
}, 60_000);
screenshotOnFailure(() => page, 'trust');
afterAll(() => opened?.close());

const storedFlex = async () => {
  const row = await t.db('generic_asset_flex').where({ asset_id: assetId }).first<{ flex_model: string; flex_context: string }>();
  return { model: JSON.parse(row.flex_model ?? '{}'), context: JSON.parse(row.flex_context ?? '{}') };
};

run('the operator can trust the screen', () => {
  it("keeps the stored settings the form does not show when saving the form as the asset's defaults; a bare power is kW", async () => {
    await page.goto(t.url + `/assets/${assetId}`);
    const panel = page.locator('.schedule-panel');
    // The relax flag stored over the API shows in the Advanced section, open because it is in use.
    await panel.getByLabel('Relax constraints').waitFor();
    expect(await panel.getByLabel('Relax constraints').inputValue()).toBe('true');
    expect(await panel.getByLabel('Price of SoC below a minimum or target').inputValue()).toBe('1000 EUR/MWh');
    await panel.getByLabel(`Start (${ZONE})`).fill(tomorrow.toFormat("yyyy-LL-dd'T'HH:mm"));
    await panel.getByLabel('Duration').fill('PT24H');
    await panel.getByLabel('SoC at start (kWh)').fill('10');
    await panel.getByLabel('SoC minimum (kWh)').fill('0');
    await panel.getByLabel('SoC maximum (kWh)').fill('20');
    // A bare 5 in a field labelled kW: 5 kW, never 5 MW.
    await panel.getByLabel('Power capacity (kW)').fill('5');
    await panel.getByLabel('Price of consumption').selectOption(String(priceId));
    await panel.getByRole('button', { name: "Save as this asset's defaults" }).click();
    await panel.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const stored = await storedFlex();
    expect(stored.model).toMatchObject({ 'power-capacity': '5 kW', 'soc-max': 20, 'soc-unit': 'kWh' });
    expect(stored.context).toEqual({
      'relax-constraints': true,
      'soc-minima-breach-price': '1000 EUR/MWh',
      commitments: [{ name: 'grid fee', baseline: '0 kW', 'up-price': '10 EUR/MWh' }],
      'consumption-price-sensor': priceId,
    });
    await page.locator('section[aria-label="Stored flex-context"] dt', { hasText: 'commitments' }).waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  it('edits the stored settings as raw JSON, refusing what is not a JSON object before sending', async () => {
    await page.getByText('Edit as JSON').click();
    const form = page.getByRole('form', { name: 'Stored flex settings as JSON' });
    const context = form.getByLabel('flex-context (JSON)');
    await context.fill('{"relax-constraints": tru');
    await form.getByText(/^Not valid JSON/).waitFor();
    expect(await form.getByRole('button', { name: 'Save JSON' }).isDisabled()).toBe(true);
    await context.fill('[1, 2]');
    await form.getByText('Must be a JSON object, e.g. {"soc-max": 40}.').waitFor();
    const edited = { ...(await storedFlex()).context, 'site-power-capacity': '50 kW' };
    await context.fill(JSON.stringify(edited, null, 2));
    await form.getByRole('button', { name: 'Save JSON' }).click();
    await page.locator('section[aria-label="Stored flex-context"] dt', { hasText: 'site-power-capacity' }).waitFor();
    expect((await storedFlex()).context).toEqual(edited);
    expect(errors).toEqual([]);
  }, 60_000);

  it(
    'says which prices were extended over which hours, in amber, in the panel, on Jobs, the Dashboard and the job page',
    async () => {
      await page.reload();
      // The page has loaded its sections before Compute: one still loading above the panel would
      // move the result after it was brought into view.
      await expect.poll(() => page.locator('.loading').count(), { timeout: STEP }).toBe(0);
      const panel = page.locator('.schedule-panel');
      await panel.getByLabel(`Start (${ZONE})`).fill(tomorrow.toFormat("yyyy-LL-dd'T'HH:mm"));
      await panel.getByLabel('SoC at start (kWh)').fill('10');
      await panel.getByRole('button', { name: 'Compute schedule' }).click();
      const badge = panel.locator('.job-state .badge');
      await panel.locator('.job-state .badge.warned').waitFor({ timeout: STEP });
      expect(await badge.textContent()).toBe('Finished with a warning');
      // The result is brought into view, not left below the long form.
      const top = await panel.locator('.job-state').evaluate((el) => el.getBoundingClientRect().top);
      expect(top).toBeGreaterThan(-1);
      expect(top).toBeLessThan(800);
      const list = panel.getByRole('region', { name: 'Warnings' });
      const noon = tomorrow.plus({ hours: 12 }).toFormat('yyyy-LL-dd HH:mm');
      const end = tomorrow.plus({ hours: 24 }).toFormat('yyyy-LL-dd HH:mm');
      expect(await list.textContent()).toContain(
        `Prices of sensor ${priceId} (day-ahead prices) do not cover the whole schedule; extended with the last known price forwards.`,
      );
      expect(await list.textContent()).toContain(`(${ZONE}: ${noon} – ${end})`);
      // What the API stores says the same.
      jobId = /[0-9a-f-]{36}/.exec((await panel.locator('.job-state > p > code').textContent())!)![0];
      const job = await t.request('GET', `/api/v3_0/jobs/${jobId}`, { token });
      expect(job.body.result.warnings).toEqual([
        expect.objectContaining({
          code: 'input-extended',
          field: 'consumption-price',
          sensor_id: priceId,
          periods: [{ start: tomorrow.plus({ hours: 12 }).toUTC().toISO(), end: tomorrow.plus({ hours: 24 }).toUTC().toISO() }],
        }),
      ]);
      // 5 kW as typed: the schedule never exceeds 0.005 MW.
      const power = job.body.result.devices[0].power_mw as number[];
      expect(Math.max(...power.map(Math.abs))).toBeCloseTo(0.005, 6);
      // Money in the price sensor's currency, as a sentence.
      expect(await panel.getByTestId('energy-cost').textContent()).toMatch(/^(costs|earns) € \d+\.\d\d$|^costs nothing$/);
      await list.scrollIntoViewIfNeeded();
      await screenshot(page, 'asset-schedule-warnings');

      await page.getByRole('link', { name: 'Jobs' }).click();
      const row = page.locator('table tbody tr').filter({ has: page.locator(`a[href="/jobs/${jobId}"]`) });
      await row.locator('.badge.warned', { hasText: 'Finished with a warning' }).waitFor();
      await screenshot(page, 'jobs-warnings');
      await page.getByRole('link', { name: 'Dashboard' }).click();
      await page.locator('.job-link .badge.warned').waitFor();
      await page.goto(t.url + `/jobs/${jobId}`);
      await page.locator('.page-head .badge.warned').waitFor();
      await page.getByRole('region', { name: 'Warnings' }).getByText(`(${ZONE}: ${noon} – ${end})`).waitFor();
      expect(errors).toEqual([]);
    },
    STEP + 30_000,
  );

  it('shows a failed job in red and a job without warnings in green', async () => {
    await page.goto(t.url + `/assets/${assetId}`);
    const panel = page.locator('.schedule-panel');
    // Six hours of known prices: nothing to extend.
    await panel.getByLabel(`Start (${ZONE})`).fill(tomorrow.toFormat("yyyy-LL-dd'T'HH:mm"));
    await panel.getByLabel('Duration').fill('PT6H');
    await panel.getByRole('button', { name: 'Compute schedule' }).click();
    await panel.locator('.job-state .badge.finished', { hasText: /^Finished$/ }).waitFor({ timeout: STEP });
    expect(await panel.getByRole('region', { name: 'Warnings' }).count()).toBe(0);
    await panel.getByLabel(`Start (${ZONE})`).fill(tomorrow.plus({ days: 7 }).toFormat("yyyy-LL-dd'T'HH:mm"));
    await panel.getByRole('button', { name: 'Compute schedule' }).click();
    await panel.locator('.job-state .badge.failed', { hasText: 'Failed' }).waitFor({ timeout: STEP });
    // The failure names the sensor by name, links to it and says what to do.
    const failure = panel.locator('.schedule-failure');
    expect(await failure.textContent()).toContain('No prices of sensor day-ahead prices are known for this window. Upload prices');
    expect(await failure.getByRole('link', { name: 'day-ahead prices' }).getAttribute('href')).toBe(`/sensors/${priceId}`);
    expect(errors).toEqual([]);
  }, 60_000);

  it("draws the server's sensor chart across the plot with a time axis and local-time tooltips, without Vega warnings", async () => {
    await page.goto(t.url + `/sensors/${priceId}?range=day&date=${tomorrow.toISODate()}`);
    const figure = page.locator('figure[aria-label="Sensor chart"][data-state="ready"]');
    await figure.waitFor();
    const points = await figure
      .locator('g.mark-symbol path[aria-label]')
      .evaluateAll((nodes) => nodes.map((n) => Number(/translate\(([-\d.]+),/.exec(n.getAttribute('transform') ?? '')?.[1])));
    expect(points).toHaveLength(PRICES.length);
    const plotWidth = Number(await figure.locator('svg.marks').getAttribute('width'));
    // Twelve hours of a 24-hour window: from the left edge to about the middle, evenly spaced.
    expect(points[0]).toBeCloseTo(0, 0);
    expect(new Set(points.map((x) => Math.round(x))).size).toBe(PRICES.length);
    expect(points[11] - points[0]).toBeGreaterThan(plotWidth * 0.35);
    const steps = points.slice(1).map((x, i) => x - points[i]);
    expect(Math.max(...steps) - Math.min(...steps)).toBeLessThan(1);
    const axisLabels = await figure.locator('g[aria-roledescription="axis"]').first().locator('text').allTextContents();
    expect(axisLabels.filter((l) => /\d\d (AM|PM)|\d\d:\d\d/.test(l)).length).toBeGreaterThanOrEqual(3);
    const tooltip = await figure.locator('g.mark-symbol path[aria-label]').first().getAttribute('aria-label');
    expect(tooltip).toContain(`Time: ${tomorrow.toFormat('yyyy-LL-dd HH:mm')}`);
    expect(tooltip).not.toContain('NaN');
    await screenshot(page, 'sensor-chart');
    expect(warnings.filter((w) => /WARN|Infinite extent|customFormatTypes/.test(w))).toEqual([]);
    expect(errors).toEqual([]);
  }, 60_000);

  it('lets the operator change their own password, invite a user with a set-password link, and get a link when forgotten', async () => {
    await page.goto(t.url + '/accounts');
    await page.getByRole('link', { name: 'Trust site' }).click();
    const me = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^user-/ }) });
    // No reset of one's own password here: it would sign the only admin out with a password nobody knows.
    await me.getByRole('link', { name: 'Change your password' }).waitFor();
    expect(await me.getByRole('button', { name: /Reset the password/ }).count()).toBe(0);

    await page.getByText('Add a user').click();
    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Email').fill('newcomer@example.com');
    await form.getByLabel('Username').fill('newcomer');
    await form.getByRole('button', { name: 'Create user' }).click();
    const link = await form.getByLabel('Set-password link for newcomer').inputValue();
    expect(link).toMatch(/\/set-password\?token=\d+\.\d+\.[\w-]+$/);
    const mailed = fs.readFileSync(path.join(t.dataDir, 'outbox.jsonl'), 'utf8');
    expect(mailed).toContain(link);
    await screenshot(page, 'account-invite');

    // The newcomer opens the link (here in the same browser) and chooses a password.
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('newcomer password');
    await page.getByLabel('Repeat the new password').fill('newcomer password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is set.').waitFor();
    expect(
      (await t.request('POST', '/api/requestAuthToken', { json: { email: 'newcomer@example.com', password: 'newcomer password' } })).status,
    ).toBe(200);

    await page.goto(t.url + '/profile');
    const profile = page.getByRole('form', { name: 'Change your password' });
    await profile.getByLabel('Current password').fill('not my password');
    await profile.getByLabel('New password', { exact: true }).fill('an operator secret');
    await profile.getByLabel('Repeat the new password').fill('an operator secret');
    await profile.getByRole('button', { name: 'Change password' }).click();
    await profile.getByText('The current password does not match.').waitFor();
    errors.length = 0; // the browser logs the 422
    await profile.getByLabel('Current password').fill(PASSWORD);
    await profile.getByRole('button', { name: 'Change password' }).click();
    await profile.getByText('Password changed.').waitFor();
    expect((await t.request('POST', '/api/requestAuthToken', { json: { email, password: 'an operator secret' } })).status).toBe(200);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send a link' }).click();
    await page.getByText('If this address belongs to an active user, a link to set a new password is in the mail outbox.').waitFor();
    const last = fs.readFileSync(path.join(t.dataDir, 'outbox.jsonl'), 'utf8').trim().split('\n').at(-1)!;
    expect(JSON.parse(last)).toMatchObject({ to: email, subject: 'A new Flexsite password' });
    expect(errors).toEqual([]);
  }, 60_000);

  it("offers the set-up zone, not the browser's, for a new asset's first sensor", async () => {
    const site = await t.db('generic_asset').where({ id: assetId }).first<{ account_id: number }>();
    const bare = await factories(t.db).asset({ accountId: site.account_id, name: 'Empty site' });
    await signIn(page, t.url + '/signin', email, 'an operator secret');
    await page.getByRole('heading', { name: 'Sites' }).waitFor();
    await page.goto(t.url + `/assets/${bare.id}`);
    await page.getByText('Add a sensor').click();
    const form = page.getByRole('form', { name: 'New sensor' });
    // The browser runs in UTC; the account was set up in Amsterdam.
    expect(await form.getByLabel('Time zone').inputValue()).toBe(ZONE);
    await form.getByLabel('Sensor name').fill('meter');
    // A power sensor (kW, the form's default unit) is made only once its sign is chosen.
    await form.getByLabel('Sign').selectOption('consumption');
    await form.getByRole('button', { name: 'Add sensor' }).click();
    await page.getByRole('link', { name: 'meter' }).waitFor();
    expect(await t.db('sensor').where({ generic_asset_id: bare.id }).first()).toMatchObject({ name: 'meter', timezone: ZONE });
    expect(errors).toEqual([]);
  }, 60_000);

  it('reads a European CSV (semicolons, decimal commas, day-first dates) and stores it right; the same file can be chosen again', async () => {
    const day = tomorrow.plus({ days: 1 });
    const csv =
      'Zeit;Preis\n' +
      [0, 1, 2]
        .map((h) => `${day.plus({ hours: h }).toFormat('dd.LL.yyyy HH:mm')};${[12.5, 13.25, -1.5][h].toString().replace('.', ',')}`)
        .join('\n') +
      '\n';
    await page.goto(t.url + `/sensors/${priceId}?range=day&date=${day.toISODate()}`);
    const input = page.getByLabel('CSV file');
    await input.setInputFiles({ name: 'preise.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByText('No problems found.').waitFor();
    expect(await page.getByLabel('Dates written').inputValue()).toBe('day-first');
    expect(await page.getByLabel('Decimal separator').inputValue()).toBe('comma');
    const preview = page.getByRole('table', { name: 'Upload preview' });
    expect(await preview.locator('tbody tr').first().textContent()).toContain(`${day.toFormat('yyyy-LL-dd')}T00:00:00`);
    // Emptied after reading: choosing the same file again is a change the page sees.
    expect(await input.inputValue()).toBe('');
    await page.getByRole('button', { name: 'Upload 3 row(s)' }).click();
    await page.locator('.csv-upload .notice.ok').waitFor();
    const stored = await t
      .db('timed_belief')
      .where({ sensor_id: priceId })
      .where('event_start', '>=', day.toMillis())
      .orderBy('event_start')
      .select('event_start', 'event_value');
    expect(stored.map((r: { event_start: number; event_value: number }) => [Number(r.event_start), r.event_value])).toEqual([
      [day.toMillis(), 12.5],
      [day.plus({ hours: 1 }).toMillis(), 13.25],
      [day.plus({ hours: 2 }).toMillis(), -1.5],
    ]);
    await input.setInputFiles({ name: 'preise.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByText('No problems found.').waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  it('names the sign convention wherever stored power is shown: the schedule panel is consumption positive, the sensor production positive', async () => {
    const battery = await t.db('sensor').where({ generic_asset_id: assetId, name: 'battery power' }).first<{ id: number }>('id');
    // The latest finished schedule of the battery holds the first hour.
    const site = await t.db('generic_asset').where({ id: assetId }).first<{ account_id: number }>();
    const jobs = (await t.request('GET', '/api/v3_0/jobs', { token, query: { account_id: site.account_id } })).body;
    const latest = jobs.find((j: { status: string; sensor_id: number }) => j.status === 'finished' && j.sensor_id === battery.id);
    const job = (await t.request('GET', `/api/v3_0/jobs/${latest.id}`, { token })).body;
    const powerKw = (job.result.devices[0].power_mw as number[]).map((mw) => mw * 1000);
    const k = powerKw.findIndex((kw) => Math.abs(kw) > 1e-6);
    expect(k).toBeGreaterThanOrEqual(0);
    await page.goto(t.url + `/sensors/${battery.id}?range=day&date=${tomorrow.toISODate()}`);
    await page.locator('.page-head').getByText('kW, production positive').waitFor();
    const figure = page.locator('figure[aria-label="Sensor chart"][data-state="ready"]');
    await figure.waitFor();
    expect(await figure.locator('g[aria-roledescription="axis"] text').allTextContents()).toContain('kW, production positive');
    await page.getByText('Table', { exact: true }).click();
    const table = page.getByRole('table', { name: 'Sensor data' });
    await table.getByRole('columnheader', { name: 'Value (production positive)' }).waitFor();
    // A scheduled step (consumption positive) is stored with the opposite sign.
    const row = await table.locator('tbody tr').nth(k).locator('td.num').textContent();
    expect(parseFloat(row!.replace('\u2212', '-'))).toBeCloseTo(-powerKw[k], 3);
    expect(errors).toEqual([]);
  }, 60_000);

  it('answers Compute with the last job while nothing changed, and Compute again with a new job, stored', async () => {
    await page.goto(t.url + `/assets/${assetId}`);
    const panel = page.locator('.schedule-panel');
    await panel.getByLabel(`Start (${ZONE})`).fill(tomorrow.plus({ hours: 1 }).toFormat("yyyy-LL-dd'T'HH:mm"));
    await panel.getByLabel('Duration').fill('PT4H');
    await panel.getByLabel('SoC at start (kWh)').fill('10');
    await panel.getByLabel('SoC minimum (kWh)').fill('0');
    await panel.getByLabel('SoC maximum (kWh)').fill('20');
    await panel.getByLabel('Power capacity (kW)').fill('5');
    await panel.getByLabel('Price of consumption').selectOption(String(priceId));
    // Only once a job is shown is there a job to compute again.
    expect(await panel.getByRole('button', { name: 'Compute again' }).count()).toBe(0);
    const shownJob = async () => (await panel.locator('.job-state > p:first-child > code').textContent())!;
    await panel.getByRole('button', { name: 'Compute schedule' }).click();
    await panel.locator('.job-state .badge.finished').waitFor({ timeout: STEP });
    const first = await shownJob();
    // The same request on unchanged prices: the same job.
    await panel.getByRole('button', { name: 'Compute schedule' }).click();
    await panel.locator('.job-state .badge.finished').waitFor({ timeout: STEP });
    expect(await shownJob()).toBe(first);
    await panel.getByRole('button', { name: 'Compute again' }).click();
    await panel.locator('.job-state > p:first-child > code', { hasNotText: first }).waitFor({ timeout: STEP });
    await panel.locator('.job-state .badge.finished').waitFor({ timeout: STEP });
    const again = await shownJob();
    expect(again).not.toBe(first);
    await screenshot(page, 'schedule-compute-again');
    // Both jobs are stored, with the same arguments: the second was asked for, not caused by a change.
    const stored = await t.db('job').whereIn('id', [first, again]).select('id', 'args', 'status');
    expect(stored.map((j: { id: string }) => j.id).sort()).toEqual([first, again].sort());
    expect(new Set(stored.map((j: { args: string }) => j.args)).size).toBe(1);
    expect(stored.every((j: { status: string }) => j.status === 'finished')).toBe(true);
    expect(errors).toEqual([]);
  }, 120_000);

  it('offers a price sensor just added in the schedule form, without a reload', async () => {
    await page.goto(t.url + `/assets/${assetId}`);
    const panel = page.locator('.schedule-panel');
    const choice = panel.getByLabel('Price of consumption');
    await choice.locator('option', { hasText: 'day-ahead prices' }).waitFor({ state: 'attached' });
    expect(await choice.locator('option', { hasText: 'intraday prices' }).count()).toBe(0);
    await page.getByText('Add a sensor').click();
    const form = page.getByRole('form', { name: 'New sensor' });
    await form.getByLabel('Sensor name').fill('intraday prices');
    await form.getByLabel('Unit').fill('EUR/MWh');
    await form.getByRole('button', { name: 'Add sensor' }).click();
    await page.getByRole('link', { name: 'intraday prices' }).waitFor();
    await choice.locator('option', { hasText: 'intraday prices' }).waitFor({ state: 'attached' });
    expect(errors).toEqual([]);
  }, 60_000);

  it("shows on an automation run's job page what it made, with links", async () => {
    const battery = await t.db('sensor').where({ generic_asset_id: assetId, name: 'battery power' }).first<{ id: number }>('id');
    const made = await t.request('POST', `/api/v3_0/assets/${assetId}/automations`, {
      token,
      json: { name: 'plan', cron: '*/15 * * * *', forecast_sensor_ids: [], schedule_sensor_id: battery.id },
    });
    expect(made.status).toBe(201);
    await t
      .db('automation')
      .where({ id: made.body.id })
      .update({ last_due: Date.now() - 1_800_000 });
    await t.server.automations.tick(Date.now());
    const runId = (await t.db('automation').where({ id: made.body.id }).first<{ last_job_id: string }>()).last_job_id;
    await t.server.services.jobs.settled(runId, 30_000);
    const run = (await t.request('GET', `/api/v3_0/jobs/${runId}`, { token })).body;
    await page.goto(t.url + `/jobs/${runId}`);
    await page.getByText(`automation #${made.body.id}, due`).waitFor();
    const madeList = page.getByLabel('Made by this run');
    await madeList.getByRole('link', { name: `job ${run.result.schedule_job_id}` }).click();
    await page.getByRole('heading', { name: `Job ${run.result.schedule_job_id}` }).waitFor();
    await page.locator('.page-head .badge').waitFor();
    expect(errors).toEqual([]);
  }, 60_000);

  it('is usable at 375 px: one-row header with a Menu, full-width charts, nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    await page.goto(t.url + `/sensors/${priceId}?range=day&date=${tomorrow.toISODate()}`);
    const figure = page.locator('figure[aria-label="Sensor chart"][data-state="ready"]');
    await figure.waitFor();
    expect((await page.locator('header.topbar').boundingBox())!.height).toBeLessThan(60);
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    // The chart fills its card: the drawing is nearly as wide as the figure.
    const chartWidth = Number(await figure.locator('svg.marks').getAttribute('width'));
    const figureWidth = (await figure.boundingBox())!.width;
    expect(chartWidth).toBeGreaterThanOrEqual(0.9 * figureWidth);
    expect(chartWidth).toBeLessThanOrEqual(figureWidth);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await screenshot(page, 'sensor-narrow');
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Jobs' }).click();
    await page.getByRole('heading', { name: 'Jobs', exact: true }).waitFor();
    expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(false);
    await page.goto(t.url + `/assets/${assetId}`);
    await page.locator('.schedule-panel').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(errors).toEqual([]);
  }, 60_000);

  it('logged no Vega warnings over the whole walk, at 1280 and 375 px', () => {
    expect(warnings.filter((w) => /WARN|Infinite extent|customFormatTypes|NaN/.test(w))).toEqual([]);
  });

  it('leaves the screenshots the README shows', () => {
    for (const name of ['asset-schedule-warnings', 'sensor-chart']) expect(fs.existsSync(path.join(ARTIFACTS, `${name}.png`))).toBe(true);
  });
});
