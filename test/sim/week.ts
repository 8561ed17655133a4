import { beforeAll, describe, expect, it } from 'vitest';
import { batteryOutOfLimits, evTargets, money, notReady, planStarts, pricesMissing, reusedComputes, reusedJobs } from './checks.ts';
import { householdMissing } from './household.ts';
import { describeRun } from './report.ts';
import type { CronMinute } from './setup.ts';
import { simulateSite, type SiteRun } from './site.ts';

/**
 * A week of unattended operation at the simulated site (see site.ts): 672 quarter hours of the
 * real server measuring, forecasting, planning and acting on a simulated clock, checked from the
 * simulation's own physics. The same week runs with the plans made every quarter hour
 * (week.test.ts), every minute (weekEveryMinute.test.ts) and at minute 55 of each hour
 * (weekMinute55.test.ts), each file on its own: the loop must come out right whenever it runs.
 */

const missing = householdMissing();
const WEEK_DAYS = 7;

/** Declares the week's checks for plans made at `cronMinute`. */
export function weekAtTheSite(cronMinute: CronMinute): void {
  describe.skipIf(missing !== undefined)(
    `a week at the simulated site, plans at cron minute ${cronMinute}${missing ? ` (skipped: ${missing})` : ''}`,
    () => {
      let run: SiteRun;
      beforeAll(async () => {
        run = await simulateSite({ days: WEEK_DAYS, cronMinute });
        console.log(`plans at cron minute ${cronMinute}\n${describeRun(run)}`);
      }, 3_600_000);

      it('runs 672 quarter hours', () => {
        expect(run.steps).toHaveLength(672);
      });

      it('starts every plan on the 15-minute grid, from the SoC the device last measured', () => {
        const starts = planStarts(run.plans);
        expect(starts.offGrid).toEqual([]);
        expect(starts.socMismatch).toEqual([]);
      });

      it('keeps the battery within 10–100 % at every step', () => {
        expect(batteryOutOfLimits(run.steps)).toEqual([]);
      });

      it('meets every EV target, or the plan that missed it said so and a notification was raised', () => {
        const targets = evTargets(run);
        expect(targets.total).toBe(5);
        expect(targets.missedSilently).toEqual([]);
      });

      it('realises the planned money to within the forecast error of load and PV, priced at each step', () => {
        const m = money(run);
        expect(m.unplannedSteps).toBe(0);
        expect(Math.abs(m.realised - m.planned)).toBeLessThanOrEqual(m.band);
      });

      it('reuses no job once its inputs changed, leaves no price missing and stays ready', () => {
        expect(reusedJobs(run)).toEqual([]);
        expect(reusedComputes(run)).toEqual([]);
        expect(run.priceGaps).toEqual([]);
        // Nor was a price missing when a plan needed it, the first Compute after the tariff was made included.
        expect(pricesMissing(run)).toEqual([]);
        expect(notReady(run.steps)).toEqual([]);
      });
    },
  );
}
