import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from '../helpers/factories.ts';
import type { TestServer } from '../helpers/testServer.ts';
import { chromiumPath, screenshot, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * Solar panels added with their tilt and azimuth in a real Chromium in New York for a site in
 * Amsterdam, at a desktop and a phone width: an out-of-range tilt is shown at its field and stores
 * nothing; the accepted ones are what the API then keeps on the panels' asset, whose sensor is in
 * the site's zone, not the browser's.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const ZONE = 'Europe/Amsterdam';

for (const width of [1280, 375]) {
  run(`solar panels with their geometry at ${width} px`, () => {
    let opened: OpenSite | undefined;
    let t: TestServer;
    let page: Page;
    let errors: string[];
    let token: string;

    beforeAll(async () => {
      if (!chromiumPath && !process.env.CI) return;
      opened = await openSite({ viewport: { width, height: 900 }, timezoneId: 'America/New_York', zone: ZONE });
      ({ t, page, errors, token } = opened);
      await signIn(page, `${t.url}/signin?next=${encodeURIComponent(`/assets/${opened.site}`)}`, opened.email, PASSWORD);
    });
    afterAll(() => opened?.close());

    const form = () => page.getByRole('form', { name: 'Add a device' });

    it('refuses a tilt above 90° at its field, then keeps peak, tilt and azimuth', async () => {
      await page.getByRole('link', { name: 'Add device' }).click();
      await form().getByLabel('Kind of device').selectOption({ label: 'Solar panels' });
      await form().getByLabel('Name').fill('Roof PV');
      await form().getByLabel('Peak power (kW)').fill('4');
      // The browser's own max would block the submit: take it off, as an older browser would not check.
      await form()
        .getByLabel('Tilt (°)')
        .evaluate((input) => input.removeAttribute('max'));
      await form().getByLabel('Tilt (°)').fill('95');
      await form().getByLabel('Azimuth (°)').fill('180');
      await form().getByRole('button', { name: 'Add device' }).click();
      await page.waitForFunction(() => document.querySelector('input[aria-invalid="true"]') !== null);
      expect(await form().getByLabel('Tilt (°)').getAttribute('aria-invalid')).toBe('true');
      expect(await t.db('generic_asset').where({ name: 'Roof PV' }).first()).toBeUndefined();
      expect(errors).toEqual([expect.stringContaining('status of 422')]);
      errors.length = 0;

      await form().getByLabel('Tilt (°)').fill('35');
      await form().getByRole('button', { name: 'Add device' }).click();
      await page.getByRole('table', { name: 'Sensors made' }).waitFor();
      await screenshot(page, `energy-pv-${width}`);
      const made = await t.db('generic_asset').where({ name: 'Roof PV' }).first();
      const asset = (await t.request('GET', `/api/v3_0/assets/${made.id}`, { token })).body;
      // 4 kW entered = 0.004 MW; tilt and azimuth as typed.
      expect(JSON.parse(asset.attributes)).toEqual({ capacity_in_mw: 0.004, tilt_in_degrees: 35, azimuth_in_degrees: 180 });
      const sensors = (await t.request('GET', '/api/v3_0/sensors', { token, query: { asset_id: String(made.id) } })).body;
      expect(sensors.map((s: { timezone: string }) => s.timezone)).toEqual([ZONE]);
      expect(errors).toEqual([]);
    });
  });
}
