import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAssetType } from '../../server/src/store/write/assets.ts';
import { PASSWORD, factories } from '../helpers/factories.ts';
import { chromiumPath, screenshot, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * The site's power flow now, in a real Chromium in New York for a site in Amsterdam: values
 * posted over the API for the grid meter, PV, battery (power and SoC), house and car show on the
 * site page and the dashboard with the way they run, turned to each part's direction by the sign
 * each sensor states; a stale car says since when, in Amsterdam's time; a new value shows by polling.
 * Every label stays inside the drawing and clear of every other, all stale and live, at both widths.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const Q = 15 * 60_000;
const ZONE = 'Europe/Amsterdam';

/** An instant as Amsterdam's wall clock, `yyyy-mm-dd hh:mm`, written by Intl (not by the app). */
const amsterdam = (ms: number) => new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE, dateStyle: 'short', timeStyle: 'short' }).format(ms);

/**
 * The labels of a drawn flow that leave its drawing, and the pairs whose boxes overlap, as the
 * browser laid them out (page pixels): both empty when every label can be read whole.
 */
async function unreadableLabels(figure: Locator) {
  const { svg, labels } = await figure.locator('svg').evaluate((el) => {
    const box = (e: Element) => {
      const r = e.getBoundingClientRect();
      return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    };
    return {
      svg: box(el),
      labels: [...el.querySelectorAll('text')].map((t) => ({ text: `${t.closest('g')?.dataset.role}: ${t.textContent}`, ...box(t) })),
    };
  });
  expect(labels.length).toBeGreaterThanOrEqual(10);
  const outside = labels.filter((b) => b.left < svg.left || b.top < svg.top || b.right > svg.right || b.bottom > svg.bottom);
  const overlapping = labels.flatMap((a, i) =>
    labels
      .slice(i + 1)
      .filter((b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom)
      .map((b) => [a.text, b.text]),
  );
  return { outside: outside.map((b) => b.text), overlapping };
}

for (const width of [1280, 375]) {
  run(`power flow now at ${width} px`, () => {
    let o: OpenSite;
    const sensors: Record<string, number> = {};

    beforeAll(async () => {
      o = await openSite({ viewport: { width, height: 900 }, timezoneId: 'America/New_York' });
      const f = factories(o.t.db);
      // The device set-up makes these types when a first such device is added; here devices are plain assets.
      await o.t.db.transaction(async (trx) => {
        for (const type of ['grid meter', 'solar', 'house load', 'one-way_evse']) await ensureAssetType(trx, type, type);
      });
      const types = (await o.t.request('GET', '/api/v3_0/assets/types', { token: o.token })).body as { id: number; name: string }[];
      const device = async (type: string, name: string) => {
        const res = await o.t.request('POST', '/api/v3_0/assets', {
          token: o.token,
          json: { name, account_id: o.accountId, parent_asset_id: o.site, generic_asset_type_id: types.find((t) => t.name === type)!.id },
        });
        expect(res.status).toBe(201);
        return (res.body as { id: number }).id;
      };
      const sensor = async (assetId: number, name: string, unit: string, consumptionPositive: boolean) =>
        (sensors[name] = (
          await f.sensor({ assetId, name, unit, timezone: ZONE, attributes: consumptionPositive ? { consumption_is_positive: true } : {} })
        ).id);
      await sensor(await device('grid meter', 'Meter'), 'grid', 'kW', true);
      await sensor(await device('solar', 'Roof'), 'pv', 'W', false);
      const battery = await device('battery', 'Battery');
      await sensor(battery, 'battery', 'kW', false);
      await sensor(battery, 'soc', '%', false);
      await sensor(await device('house load', 'House'), 'house', 'kW', true);
      await sensor(await device('one-way_evse', 'Charger'), 'car', 'kW', true);
    });
    afterAll(() => o?.close());

    const post = async (name: string, startMs: number, value: number, unit: string) => {
      const res = await o.t.request('POST', `/api/v3_0/sensors/${sensors[name]}/data`, {
        token: o.token,
        json: { values: [value], start: new Date(startMs).toISOString(), duration: 'PT15M', unit },
      });
      expect(res.status).toBe(200);
    };
    /** What a part of the flow shows: its value line and the way its line runs. */
    const part = async (role: string, scope = o.page.getByRole('figure', { name: 'Power flow of Home' })) => {
      const g = scope.locator(`g[data-role="${role}"]`);
      return { text: (await g.locator('text[data-value]').textContent()) ?? '', direction: await g.getAttribute('data-direction') };
    };

    it('keeps every label of an all-stale flow whole and apart, on the site page and the dashboard', async () => {
      // Every part's last value ended at 2025-03-30T22:00Z, 00:00 on 31 March in Amsterdam (CEST, UTC+2).
      const end = Date.UTC(2025, 2, 30, 22);
      for (const [name, value, unit] of [
        ['grid', 2.5, 'kW'],
        ['pv', 3200, 'W'],
        ['battery', -1.5, 'kW'],
        ['soc', 62, '%'],
        ['house', 1.2, 'kW'],
        ['car', 3, 'kW'],
      ] as const)
        await post(name, end - Q, value, unit);
      const since = `no data since ${amsterdam(end)}`;
      expect(since).toBe('no data since 2025-03-31 00:00');

      await signIn(o.page, `${o.t.url}/signin?next=${encodeURIComponent(`/assets/${o.site}`)}`, o.email, PASSWORD);
      await o.page.waitForURL(`**/assets/${o.site}`);
      for (const [path, shot] of [
        [`/assets/${o.site}`, 'site'],
        ['/', 'dashboard'],
      ]) {
        await o.page.goto(`${o.t.url}${path}`);
        const figure = o.page.getByRole('figure', { name: 'Power flow of Home' });
        await figure.and(o.page.locator('[data-state="ready"]')).waitFor();
        await expect.poll(() => part('car', figure)).toEqual({ text: since, direction: 'none' });
        for (const role of ['grid', 'pv', 'battery', 'house']) expect(await part(role, figure)).toEqual({ text: since, direction: 'none' });
        expect(await figure.locator('g[data-role="battery"] text[data-soc]').textContent()).toBe(`SoC ${since}`);
        expect(await unreadableLabels(figure)).toEqual({ outside: [], overlapping: [] });
        await figure.scrollIntoViewIfNeeded();
        await screenshot(o.page, `energy-flow-stale-${shot}-${width}`);
      }
      expect(o.errors).toEqual([]);
      // Signed out (the session lives in the tab's storage), so the next test signs in as a person does.
      await o.page.evaluate(() => sessionStorage.clear());
    });

    it('shows the posted values with their directions, a stale car since when, and new values as they come', async () => {
      const last = Math.floor(Date.now() / Q) * Q - Q;
      // Grid meter, consumption positive: +2.5 kW is 2.5 kW imported (toward the site).
      await post('grid', last, 2.5, 'kW');
      // PV in W, production positive (the default): 3200 W is 3.20 kW produced.
      await post('pv', last, 3200, 'W');
      // Battery, production positive: −1.5 kW is 1.5 kW charging (away from the site).
      await post('battery', last, -1.5, 'kW');
      await post('soc', last, 62, '%');
      // House, consumption positive: 1.2 kW used. Balance: 2.5 + 3.2 in = 1.5 + 1.2 + 3.0 out.
      await post('house', last, 1.2, 'kW');
      // The car's last value ended 45 minutes ago: a 15-minute sensor is stale after 30.
      const carEnd = last - 2 * Q;
      await post('car', carEnd - Q, 3.0, 'kW');

      await signIn(o.page, `${o.t.url}/signin?next=${encodeURIComponent(`/assets/${o.site}`)}`, o.email, PASSWORD);
      const figure = o.page.getByRole('figure', { name: 'Power flow of Home' });
      await figure.and(o.page.locator('[data-state="ready"]')).waitFor();
      await expect.poll(() => part('grid')).toEqual({ text: 'importing 2.50 kW', direction: 'in' });
      expect(await part('pv')).toEqual({ text: 'producing 3.20 kW', direction: 'in' });
      expect(await part('battery')).toEqual({ text: 'charging 1.50 kW', direction: 'out' });
      expect(await figure.locator('g[data-role="battery"] text[data-soc]').textContent()).toBe('SoC 62 %');
      expect(await part('house')).toEqual({ text: 'using 1.20 kW', direction: 'out' });
      // Stale: no flow drawn, and since when in the site's zone (not New York's).
      expect(await part('car')).toEqual({ text: `no data since ${amsterdam(carEnd)}`, direction: 'none' });
      expect(await unreadableLabels(figure)).toEqual({ outside: [], overlapping: [] });
      await figure.scrollIntoViewIfNeeded();
      await screenshot(o.page, `energy-flow-site-${width}`);

      // The meter now reads −0.8 kW for the same quarter (a later belief): 0.80 kW exported, by polling.
      await post('grid', last, -0.8, 'kW');
      await expect.poll(() => part('grid'), { timeout: 20_000, interval: 500 }).toEqual({ text: 'exporting 0.80 kW', direction: 'out' });

      // The dashboard draws the same flow for the site.
      await o.page.goto(`${o.t.url}/`);
      const onDashboard = o.page.getByRole('figure', { name: 'Power flow of Home' });
      await onDashboard.and(o.page.locator('[data-state="ready"]')).waitFor();
      expect(await part('grid', onDashboard)).toEqual({ text: 'exporting 0.80 kW', direction: 'out' });
      expect(await part('battery', onDashboard)).toEqual({ text: 'charging 1.50 kW', direction: 'out' });
      expect(await unreadableLabels(onDashboard)).toEqual({ outside: [], overlapping: [] });
      await screenshot(o.page, `energy-flow-dashboard-${width}`);
      expect(o.errors).toEqual([]);

      // The API says the same, in the directions its contract states.
      const now = (await o.t.request('GET', `/api/v3_0/assets/${o.site}/now`, { token: o.token })).body as {
        flow: { role: string; value: number; stale: boolean }[];
      };
      expect(now.flow.map((f) => [f.role, f.value, f.stale])).toEqual([
        ['grid', -0.8, false],
        ['pv', 3.2, false],
        ['battery', 1.5, false],
        ['soc', 62, false],
        ['house', 1.2, false],
        ['car', 3, true],
      ]);
    });
  });
}
