import path from 'node:path';
import mqtt from 'mqtt';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD, factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { ARTIFACTS, chromiumPath, consoleErrors, screenshot, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * Devices over MQTT in a real Chromium, against the embedded broker: a link made on the device's
 * page, a real MQTT client publishing with the password the page showed, the link's test and the
 * Site now page reporting the reading without a reload, and the link removed; at 1280 and 375 px.
 * With MQTT off, the page says how to switch it on instead of offering the form.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const Q = 15 * 60_000;

let opened: OpenSite | undefined;
let t: TestServer;
let browser: Browser;
let page: Page;
let errors: string[];
let token: string;
let email: string;
let site: number;
let device: number;
let sensorId: number;
let gridId: number;

beforeAll(async () => {
  if (!chromiumPath && !process.env.CI) return;
  opened = await openSite({ settings: { FLEXSITE_MQTT: 'embedded', FLEXSITE_MQTT_HOST: '127.0.0.1', FLEXSITE_MQTT_PORT: '0' } });
  let accountId: number;
  ({ t, browser, page, errors, token, email, accountId, site } = opened);
  const f = factories(t.db);
  device = (await f.asset({ accountId, type: 'solar', name: 'PV inverter' })).id;
  await t.db('generic_asset').where({ id: device }).update({ parent_asset_id: site });
  sensorId = (await f.sensor({ assetId: device, unit: 'kW', resolutionMinutes: 15, name: 'PV power' })).id;
  gridId = (await f.sensor({ assetId: site, unit: 'kW', resolutionMinutes: 15, name: 'grid power' })).id;
  await signIn(page, `${t.url}/signin?next=${encodeURIComponent(`/assets/${device}`)}`, email, PASSWORD);
  await page.getByRole('heading', { name: 'PV inverter' }).waitFor();
});
afterAll(() => opened?.close());

/** The cells of a table row, by its heading, as shown. */
const cells = (table: string, rowName: string | RegExp) =>
  page
    .getByRole('table', { name: table })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: rowName }) })
    .getByRole('cell')
    .allInnerTexts();

/** Saves the device links section alone, big enough to read, as `test/artifacts/<name>.png`. */
const sectionShot = (name: string) =>
  page.locator('section[aria-labelledby="links-title"]').screenshot({ path: path.join(ARTIFACTS, `${name}.png`) });

const noSidewaysScroll = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);

/** Fills and sends the new-link form on the device page; returns the credentials the page shows once. */
async function makeLink(name: string, topic: string) {
  await page.getByText('Link a device').click();
  const form = page.getByRole('form', { name: 'New device link' });
  await form.getByLabel('Link name').fill(name);
  await form.getByLabel('Topic').fill(topic);
  await form.getByLabel('Payload').selectOption('json');
  await form.getByLabel('Value path').fill('apower');
  await form.getByLabel('Unit', { exact: true }).fill('W');
  await form.getByRole('button', { name: 'Link device' }).click();
  const made = page.getByRole('status', { name: 'Link made' });
  await made.waitFor();
  expect(await made.innerText()).toContain(`the device publishes on ${topic}`);
  const [username, password] = await made.locator('code').allInnerTexts();
  return { username, password };
}

/** Presses the link's Test button until the test reports `expected`. */
async function testUntil(name: string, expected: RegExp) {
  const row = page.getByRole('table', { name: 'Device links' }).getByRole('row').filter({ hasText: name });
  await expect
    .poll(
      async () => {
        await row.getByRole('button', { name: 'Test' }).click();
        return page.getByRole('status', { name: 'Link test' }).innerText({ timeout: 5000 });
      },
      { timeout: 20_000, interval: 500 },
    )
    .toMatch(expected);
}

run('device links', () => {
  for (const width of [1280, 375]) {
    it(`makes, tests and removes a link; Site now shows its reading live (${width} px)`, async () => {
      await page.setViewportSize({ width, height: width === 1280 ? 800 : 812 });
      const name = `meter ${width}`;
      const topic = `home/pv-${width}/power`;
      await page.goto(`${t.url}/assets/${device}`);
      await page.getByRole('heading', { name: 'Device links (MQTT)' }).waitFor();
      await page.getByText(/Devices connect to the broker inside Flexsite: port \d+/).waitFor();
      const { username, password } = await makeLink(name, topic);
      await sectionShot(`device-links-made-${width}`);
      const listed = (await t.request('GET', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token })).body;
      const link = listed.find((l: { name: string }) => l.name === name);
      expect(link).toMatchObject({ topic, value_path: 'apower', unit: 'W', scale: 1, inverted: false, username });
      expect(await cells('Device links', new RegExp(name))).toEqual([
        'PV power',
        topic,
        'JSON at apower, W',
        'none yet',
        '0',
        expect.stringContaining('Test'),
      ]);
      await testUntil(name, new RegExp(`^${name}: no message yet$`));

      // The site's Site now page, opened before the reading; a marker on the window shows it is never reloaded.
      await page.goto(`${t.url}/assets/${site}/now`);
      await page.getByRole('table', { name: 'Sensors now' }).waitFor();
      await page.evaluate(() => Object.assign(window, { notReloaded: true }));
      // Asset, latest, age, device now, …
      expect((await cells('Sensors now', 'PV power'))[3]).toBe('no message yet');
      const meter = await mqtt.connectAsync(`mqtt://127.0.0.1:${t.server.mqtt!.brokerPort}`, { username, password, reconnectPeriod: 0 });
      await meter.publishAsync(topic, JSON.stringify({ apower: 1250 }), { qos: 1 });
      await meter.endAsync();
      // 1250 W as the kW sensor reads it.
      await expect
        .poll(async () => (await cells('Sensors now', 'PV power'))[3], { timeout: 10_000, interval: 250 })
        .toMatch(/^1\.25 kW, \d+ s ago$/);
      // A value posted over the API shows the same way (on a sensor of its own: the device's closing interval could outdate it).
      const quarter = Math.floor(Date.now() / Q) * Q - (width === 1280 ? 2 : 1) * Q;
      const posted = await t.request('POST', `/api/v3_0/sensors/${gridId}/data`, {
        token,
        json: { values: [width / 1000], start: new Date(quarter).toISOString(), duration: 'PT15M', unit: 'kW' },
      });
      expect(posted.status).toBe(200);
      await expect
        .poll(async () => (await cells('Sensors now', 'grid power'))[1], { timeout: 10_000, interval: 250 })
        .toBe(`${width / 1000} kW, production positive`);
      expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
      expect(await noSidewaysScroll(), `site now at ${width}`).toBeLessThanOrEqual(0);
      await screenshot(page, `device-links-site-now-${width}`);

      // Back on the device page, the test reports the reading.
      await page.goto(`${t.url}/assets/${device}`);
      await page.getByRole('heading', { name: 'Device links (MQTT)' }).waitFor();
      await testUntil(name, new RegExp(`^${name}: last message \\d+ s ago, value 1\\.25 kW$`));
      expect((await cells('Device links', new RegExp(name)))[3]).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d, 1\.25 kW$/);
      expect(await noSidewaysScroll(), `device page at ${width}`).toBeLessThanOrEqual(0);
      await screenshot(page, `device-links-${width}`);
      await sectionShot(`device-links-tested-${width}`);

      // Removed after a confirmation: gone from the page and the API.
      page.once('dialog', (d) => void d.accept());
      await page
        .getByRole('table', { name: 'Device links' })
        .getByRole('row')
        .filter({ hasText: name })
        .getByRole('button', { name: 'Remove' })
        .click();
      await page.getByText('No device sends to or reads from these sensors over MQTT yet.').waitFor();
      const after = (await t.request('GET', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token })).body;
      expect(after.map((l: { id: number }) => l.id)).not.toContain(link.id);
      expect((await t.request('GET', `/api/v3_0/mqtt-links/${link.id}`, { token })).status).toBe(404);
      expect(errors).toEqual([]);
    }, 90_000);
  }

  it('makes an out-link with its safe setpoint; its device reads its own setpoint topic', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${t.url}/assets/${device}`);
    await page.getByText('Link a device').click();
    const form = page.getByRole('form', { name: 'New device link' });
    await form.getByLabel('Direction').selectOption('out');
    await form.getByLabel('Link name').fill('inverter');
    await form.getByLabel('Safe setpoint').fill('0.2');
    await form.getByLabel('Plan too old after').fill('PT6H');
    await form.getByLabel('Sign').selectOption({ label: 'Production positive' });
    await expect.poll(() => form.getByLabel('Topic').count()).toBe(0);
    await form.getByRole('button', { name: 'Link device' }).click();
    const made = page.getByRole('status', { name: 'Link made' });
    await made.waitFor();
    const [link] = (await t.request('GET', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token })).body;
    expect(link).toMatchObject({ direction: 'out', name: 'inverter', unit: 'kW', safe_setpoint: 0.2, stale_after: 'PT6H', inverted: true });
    expect(await made.innerText()).toContain(`reads its setpoint on flexsite/${link.username}/setpoint (plan and status beside it).`);
    expect(await cells('Device links', /inverter/)).toEqual([
      'PV power',
      `flexsite/${link.username}/setpoint`,
      'setpoint in kW, production positive; 0.2 kW when the plan ends or is older than PT6H',
      '–',
      '–',
      'Remove',
    ]);
    await sectionShot('device-links-out-1280');
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Remove' }).click();
    await page.getByText('No device sends to or reads from these sensors over MQTT yet.').waitFor();
    expect((await t.request('GET', `/api/v3_0/sensors/${sensorId}/mqtt-links`, { token })).body).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('says how to switch MQTT on when it is off, instead of the form', async () => {
    const off = await startTestServer();
    try {
      const f = factories(off.db);
      const accountId = (await f.account()).id;
      const user = await f.user({ accountId, roles: ['account-admin'] });
      const asset = (await f.asset({ accountId, type: 'solar', name: 'Roof PV' })).id;
      await f.sensor({ assetId: asset, unit: 'kW', name: 'roof power' });
      const offPage = await browser.newPage({ viewport: { width: 375, height: 812 } });
      const offErrors = consoleErrors(offPage);
      await signIn(offPage, `${off.url}/signin?next=${encodeURIComponent(`/assets/${asset}`)}`, user.user.email, PASSWORD);
      const note = offPage.getByRole('note').filter({ hasText: 'MQTT is off' });
      await note.waitFor();
      expect(await note.innerText()).toContain('FLEXSITE_MQTT=embedded');
      expect(await offPage.getByText('Link a device').count()).toBe(0);
      expect(await offPage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
      await screenshot(offPage, 'device-links-off-375');
      await offPage
        .locator('section[aria-labelledby="links-title"]')
        .screenshot({ path: path.join(ARTIFACTS, 'device-links-off-section-375.png') });
      expect(offErrors).toEqual([]);
      await offPage.close();
    } finally {
      await off.close();
    }
  });
});
