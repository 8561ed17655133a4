import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { PASSWORD } from '../helpers/factories.ts';
import { PLAN_FIRST, PLAN_NOW, plannedBattery } from '../helpers/planAheadSite.ts';
import { waitForSchedule } from '../helpers/schedules.ts';
import { chartValues, chromiumPath, screenshot, signIn } from './browser.ts';
import { openSite, type OpenSite } from './fixture.ts';

/**
 * Tomorrow at a glance, in a real Chromium in New York for a site in Amsterdam: a battery
 * scheduled over the API against two price levels shows on the dashboard as the plan computed
 * (charging at its 5 kW limit in the cheap hours, discharging in the dear ones), its state of
 * charge and target, the prices, PV and load forecasts, a "now" line at the site's current time,
 * the hours in Amsterdam's time, and where nothing is planned said so instead of drawn as zero.
 * The server runs on a simulated clock: 9 March 2027, 10:20 in Amsterdam (UTC+1); the site is
 * helpers/planAheadSite.ts's.
 */

const run = chromiumPath || process.env.CI ? describe : describe.skip;
const H = 3600_000;
const ZONE = 'Europe/Amsterdam';
const LABEL = 'Plan ahead of Home';

/** An instant as Amsterdam's wall clock, `yyyy-mm-dd hh:mm`, written by Intl (not by the app). */
const amsterdam = (ms: number) => new Intl.DateTimeFormat('sv-SE', { timeZone: ZONE, dateStyle: 'short', timeStyle: 'short' }).format(ms);
/** An ISO instant as the API writes it in Amsterdam in March (UTC+1): `2027-03-09T10:20:00.000+01:00`. */
const amsterdamIso = (utc: string) => new Date(Date.parse(utc) + H).toISOString().replace('Z', '+01:00');
/** An instant as the chart's axis writes it in Amsterdam: `Mar 09 14:00`, by Intl. */
const axisLabel = (ms: number) => {
  const part = (o: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat('en-US', { timeZone: ZONE, ...o }).format(ms);
  return `${part({ month: 'short' })} ${part({ day: '2-digit' })} ${part({ hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })}`;
};

for (const width of [1280, 375]) {
  run(`the next 24 hours at ${width} px`, () => {
    let o: OpenSite;
    let battery: number;
    let job: string;
    let prices: number;
    let batteryAsset: number;
    /** Now, and the first hour planned: the next whole hour. */
    const [now, first] = [PLAN_NOW, PLAN_FIRST];

    beforeAll(async () => {
      o = await openSite({ clock: new SimulatedClock(now), viewport: { width, height: 900 }, timezoneId: 'America/New_York', zone: ZONE });
      ({ batteryAsset, battery, prices, job } = await plannedBattery(o.t, o.token, o.accountId, o.site));
    });
    afterAll(() => o?.close());

    it('draws the computed plan, its prices and forecasts, now, and where nothing is planned', async () => {
      await signIn(o.page, `${o.t.url}/signin?next=/`, o.email, PASSWORD);
      const figure = o.page.locator(`figure[aria-label="${LABEL}"][data-state="ready"]`);
      await figure.waitFor();

      // The computed plan: charging 5 kW (the limit) for the three 20 EUR hours fills 0 → 15 kWh,
      // discharging 5 kW for the three 100 EUR hours empties it again; nothing can do better, as
      // 5 kW is the most per hour. As devices read the schedule (kW, consumption positive):
      const stored = await o.t.request('GET', `/api/v3_0/sensors/${battery}/schedules/${job}`, { token: o.token });
      expect(stored.body.values).toEqual([5, 5, 5, -5, -5, -5]);
      // The chart plots one value per planned hour: the plan, and what the API answers for it.
      const planned = await chartValues(o.page, LABEL, 'Planned power (kW)');
      expect(planned).toEqual([5, 5, 5, -5, -5, -5]);
      const ahead = (await o.t.request('GET', `/api/v3_0/assets/${o.site}/plan-ahead`, { token: o.token })).body;
      expect(ahead.devices[0].steps.map((s: { power_kw: number }) => s.power_kw)).toEqual(planned);
      // The state of charge at each hour boundary: 0, 5, 10, 15, then back to 0.
      expect(await chartValues(o.page, LABEL, 'Planned SoC (kWh)')).toEqual([0, 5, 10, 15, 10, 5, 0]);
      expect(await chartValues(o.page, LABEL, 'Target (kWh)')).toEqual([15]);
      expect(await chartValues(o.page, LABEL, 'Price (EUR/MWh)')).toEqual([20, 20, 20, 100, 100, 100]);
      // PV stores production positive: 2 and 3 kW produced plot as −2 and −3; the house as stored.
      expect(await chartValues(o.page, LABEL, 'Forecast power (kW)')).toEqual([-2, -3, 1.5, 1.5]);

      // Where nothing is planned: from the start of this hour to the plan, and from its end to 24 hours ahead.
      // The window: from the start of this hour (10:00) to 24 hours after now, rounded up (11:00 tomorrow).
      const [start, end] = [now - 20 * 60_000, first + 24 * H];
      expect([ahead.now, ahead.start, ahead.end]).toEqual([now, start, end].map((ms) => new Date(ms).toISOString()).map(amsterdamIso));
      const notes = o.page.getByRole('list', { name: 'About this plan' });
      await expect
        .poll(() => notes.locator('[data-note="no-plan"]').textContent())
        .toBe(`No plan (unknown, not zero): ${amsterdam(start)} – ${amsterdam(first)}, ${amsterdam(first + 6 * H)} – ${amsterdam(end)}`);
      expect(await notes.locator('[data-note="degraded"]').count()).toBe(0);

      // The now line sits where the site's now falls between the planned hours, and the hour labels
      // sit where Amsterdam's hours do (New York's would be six hours off).
      const power = figure.locator('g.mark-group.role-scope').first();
      const xs = await power
        .locator('g.mark-symbol path[aria-label*="Planned power (kW)"]')
        .evaluateAll((n) => n.map((e) => e.getAttribute('transform')));
      const x = (transform: string | null) => Number(/translate\(([-\d.e]+)/.exec(transform ?? '')?.[1]);
      const [x0, x1] = [x(xs[0]), x(xs[1])];
      const perHour = x1 - x0;
      const rule = x(await power.locator('g.mark-rule.role-mark line').first().getAttribute('transform'));
      // Now is 40 minutes before the first planned hour: 2/3 of an hour's width left of its point.
      expect(rule).toBeCloseTo(x0 - (2 / 3) * perHour, 0);
      await expect.poll(() => o.page.getByText('The dashed red line is now').textContent()).toContain(`now, ${amsterdam(now)}.`);
      const labels = await power
        .locator('g.role-axis-label text')
        .evaluateAll((n) =>
          n.filter((e) => e.getAttribute('opacity') !== '0').map((e) => [e.textContent ?? '', e.getAttribute('transform')] as const),
        );
      const hourLabels = labels.filter(([text]) => /\d\d:\d\d$/.test(text));
      expect(hourLabels.length).toBeGreaterThan(1);
      for (const [text, transform] of hourLabels) {
        const k = Array.from({ length: 28 }, (_, i) => i - 2).find((i) => axisLabel(first + i * H) === text);
        expect(k, `${text} is an Amsterdam hour of the window`).toBeDefined();
        expect(x(transform)).toBeCloseTo(x0 + k! * perHour, 0);
      }

      await figure.scrollIntoViewIfNeeded();
      await screenshot(o.page, `energy-glance-${width}`);
      expect(o.errors).toEqual([]);
    });

    it('marks a fallback plan that misses its target as degraded, on the chart and in words', async () => {
      // A newer plan for 14:00–17:00 from empty, asked to hold 20 kWh at 15:00: at 5 kW at most
      // 5 kWh is reachable, so the scheduler is infeasible and the fallback charges 5 kW each hour.
      const res = await o.t.request('POST', `/api/v3_0/sensors/${battery}/schedules/trigger`, {
        token: o.token,
        json: {
          start: new Date(first + 3 * H).toISOString(),
          duration: 'PT3H',
          'flex-model': {
            'soc-at-start': '0 kWh',
            'soc-min': '0 kWh',
            'soc-max': '20 kWh',
            'power-capacity': '5 kW',
            'soc-targets': [{ datetime: new Date(first + 4 * H).toISOString(), value: '20 kWh' }],
          },
          'flex-context': { 'consumption-price-sensor': prices, 'site-power-capacity': '1 MW' },
        },
      });
      expect(res.status).toBe(200);
      const done = await waitForSchedule(o.t, o.token, battery, res.body.schedule as string);
      expect(done.body.scheduler_info).toEqual({ scheduler: 'StorageFallbackScheduler' });
      await o.page.reload();
      const figure = o.page.locator(`figure[aria-label="${LABEL}"][data-state="ready"]`);
      await figure.waitFor();
      // 11:00–14:00 stay the first plan's; 14:00–17:00 are the fallback's 5 kW from empty: 5, 10, 15 kWh.
      expect(await chartValues(o.page, LABEL, 'Planned power (kW)')).toEqual([5, 5, 5, 5, 5, 5]);
      expect(await chartValues(o.page, LABEL, 'Planned SoC (kWh)')).toEqual([0, 5, 10, 15, 0, 5, 10, 15]);
      expect(await chartValues(o.page, LABEL, 'Target (kWh)')).toEqual([15, 20]);
      const reached = await figure
        .locator('g.mark-symbol path[aria-label*="Target (kWh)"]')
        .evaluateAll((n) => n.map((e) => /The plan: (\w+)/.exec(e.getAttribute('aria-label') ?? '')?.[1]));
      expect(reached).toEqual(['met', 'missed']);
      // The fallback's hours are shaded as degraded in each panel, from 14:00 to 17:00 Amsterdam time.
      const degraded = await figure
        .locator('g.mark-rect path[aria-label*="Degraded plan"]')
        .evaluateAll((n) => n.map((e) => e.getAttribute('aria-label')));
      expect(degraded).toHaveLength(3);
      expect(degraded[0]).toContain(`${amsterdam(first + 3 * H)} – ${amsterdam(first + 6 * H)}`);
      const notes = o.page.getByRole('list', { name: 'About this plan' });
      expect(await notes.locator('[data-note="degraded"]').textContent()).toContain('by the fallback scheduler');
      // Its warnings name the device (asset "Battery", sensor "power"), not a sensor id.
      expect(await notes.locator('[data-note="degraded"]').textContent()).toContain('SoC targets of Battery power not met');
      expect(await notes.locator('[data-note="target-missed"]').textContent()).toBe(
        `Battery: target of 20 kWh at ${amsterdam(first + 4 * H)} missed by the plan`,
      );
      await figure.scrollIntoViewIfNeeded();
      await screenshot(o.page, `energy-glance-degraded-${width}`);
      expect(o.errors).toEqual([]);
    });

    it('marks a recurring target that no plan holds yet as not planned', async () => {
      // "10 kWh by 08:00 on Wednesdays": 10 March 08:00 in Amsterdam, within the window, past every plan.
      const put = await o.t.request('PUT', `/api/v3_0/assets/${batteryAsset}/recurring-soc-targets`, {
        token: o.token,
        json: { targets: [{ days: ['wed'], time: '08:00', value: '10 kWh' }] },
      });
      expect(put.status).toBe(200);
      await o.page.reload();
      await o.page.locator(`figure[aria-label="${LABEL}"][data-state="ready"]`).waitFor();
      expect(await chartValues(o.page, LABEL, 'Target (kWh)')).toEqual([15, 20, 10]);
      const note = o.page.getByRole('list', { name: 'About this plan' }).locator('[data-note="target-unplanned"]');
      expect(await note.textContent()).toBe(`Battery: target of 10 kWh at ${amsterdam(first + 21 * H)} not planned yet`);
      expect(o.errors).toEqual([]);
    });
  });
}
