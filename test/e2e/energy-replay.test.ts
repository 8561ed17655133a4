import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PASSWORD } from '../helpers/factories.ts';
import { HAND_WORKED, storeHandWorked } from '../helpers/replaySite.ts';
import { ARTIFACTS, chromiumPath, screenshot, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * "Would a battery pay?" on the site page, in a real Chromium in New York for a site in
 * Amsterdam: the form starts a replay of the hand-worked case (test/helpers/replaySite.ts: two
 * days of a steady 1 kW, 0.10 EUR/kWh from 00:00 to 06:00 and 0.30 otherwise, a lossless
 * 10 kWh / 5 kW battery), shows its progress, then the figures worked by hand — 12.00 EUR without,
 * 8.00 with, 730.00 a year saved, 2 cycles — which are also what the job's API answer says, and
 * what was stored: the job's sizes and tariff, and the audit entry.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;

for (const width of [1280, 375]) {
  run(`would a battery pay? at ${width} px`, () => {
    let o: OpenSite;

    beforeAll(async () => {
      o = await openSite({ viewport: { width, height: 900 }, timezoneId: 'America/New_York' });
      await storeHandWorked(o.t.db, o.accountId, o.site);
    });
    afterAll(() => o?.close());

    it('starts the replay, shows progress, then the figures worked by hand and those of the API', async () => {
      await signIn(o.page, `${o.t.url}/signin?next=${encodeURIComponent(`/assets/${o.site}/now`)}`, o.email, PASSWORD);
      const form = o.page.getByRole('form', { name: 'Would a battery pay?' });
      await form.waitFor();
      await form.getByLabel('Battery sizes (kWh/kW)').fill('10/5');
      await form.getByLabel('Round-trip efficiency (%)').fill('100');
      await form.getByLabel('Tariff').selectOption('time-of-use');
      await form.getByLabel('Price (EUR/kWh)', { exact: true }).fill('0.30');
      await form.getByLabel('Cheaper hours from').fill('00:00');
      await form.getByLabel('Cheaper hours until').fill('06:00');
      await form.getByLabel('Cheaper price (EUR/kWh)').fill('0.10');
      await form.getByLabel('Feed-in (EUR/kWh)').fill('0');
      // The period's dates are the site's (Amsterdam), whatever the browser's zone.
      await expect.poll(() => o.page.getByText('First day (Europe/Amsterdam)').count()).toBe(1);
      await form.getByLabel('First day (Europe/Amsterdam)').fill(HAND_WORKED.start);
      await form.getByLabel('Day after the last').fill(HAND_WORKED.end);
      await form.getByRole('button', { name: 'Replay' }).click();

      await o.page.getByRole('progressbar', { name: 'Replay progress' }).waitFor();
      const result = o.page.getByLabel('Replay result');
      await result.waitFor({ timeout: 120_000 });
      await screenshot(o.page, `energy-replay-${width}`);
      await o.page.locator('.battery-replay').screenshot({ path: path.join(ARTIFACTS, `energy-replay-card-${width}.png`) });

      // On screen, as worked by hand.
      const row = result.locator('tr[data-size="10 kWh / 5 kW"]');
      expect(await row.locator('[data-figure="savings-per-year"]').textContent()).toBe('€ 730.00');
      expect(await row.locator('[data-figure="cycles"]').textContent()).toBe('2');
      expect(await row.locator('td').nth(0).textContent()).toBe('€ 8.00');
      expect(await row.locator('td').nth(1).textContent()).toBe('€ 4.00');
      expect(await result.locator('[data-figure="cost-without"]').textContent()).toBe('€ 12.00');
      // The chart's bars: March without and with the battery.
      const bars = await result.locator('svg rect[aria-label]').evaluateAll((n) => n.map((r) => r.getAttribute('aria-label')));
      expect(bars).toEqual(['2026-03 Without: € 12.00', '2026-03 With 10 kWh / 5 kW: € 8.00']);

      // What was stored: the job with the sizes and tariff entered (EUR/MWh), and the audit entry.
      const job = await o.t.db('job').where({ queue: 'battery-replay' }).orderBy('created_at', 'desc').first();
      const args = JSON.parse(job.args);
      expect(args.sizes).toEqual([{ capacityKwh: 10, powerKw: 5, roundTripEfficiency: 1 }]);
      expect(args.tariff).toMatchObject({
        kind: 'time-of-use',
        buying: { price: 300, periods: [{ from: '00:00', to: '06:00', price: 100 }] },
      });
      const audit = await o.t
        .db('audit_log')
        .where({ affected_asset_id: o.site })
        .where('event', 'like', `Started battery replay ${job.id}%`);
      expect(audit).toHaveLength(1);
      // The screen says what the API says.
      const api = await o.t.request('GET', `/api/v3_0/assets/${o.site}/battery-replay/${job.id}`, { token: o.token });
      expect(api.body).toMatchObject({ status: 'finished', progress: { done: 2, total: 2 } });
      const size = api.body.result.sizes[0];
      expect(`€ ${size.savings_per_year.toFixed(2)}`).toBe(await row.locator('[data-figure="savings-per-year"]').textContent());
      expect(String(size.cycles)).toBe(await row.locator('[data-figure="cycles"]').textContent());
      expect(`€ ${api.body.result.cost_without.toFixed(2)}`).toBe(await result.locator('[data-figure="cost-without"]').textContent());
      expect(o.errors).toEqual([]);
    }, 180_000);
  });
}
