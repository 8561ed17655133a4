/**
 * A week at the simulated site (test/sim/site.ts): the real server on a simulated clock, a house
 * with the real household's load and PV, a battery and an EV, a time-of-use tariff. Prints the
 * week's figures: planned against realised money, savings against no battery, EV targets met,
 * forecast MAE, and every check's violations. FLEXSITE_SIM_DAYS and FLEXSITE_SIM_CRON_MINUTE
 * (`*`/15, `*`, `55`) choose another run.
 */
import { householdMissing } from '../test/sim/household.ts';
import { describeRun } from '../test/sim/report.ts';
import type { CronMinute } from '../test/sim/setup.ts';
import { simulateSite } from '../test/sim/site.ts';

const missing = householdMissing();
if (missing) {
  console.log(`simulate: skipped, ${missing}`);
  process.exit(0);
}
const days = Number(process.env.FLEXSITE_SIM_DAYS ?? 7);
const cronMinute = (process.env.FLEXSITE_SIM_CRON_MINUTE ?? '*/15') as CronMinute;
const started = performance.now();
const run = await simulateSite({
  days,
  cronMinute,
  onStep: (done, total) => {
    if (done % 96 === 0 || done === total)
      console.log(`day ${Math.ceil(done / 96)}: ${done}/${total} quarter hours, ${Math.round((performance.now() - started) / 1000)} s`);
  },
});
console.log(`\n${days} days, plans at cron minute ${cronMinute}, simulated in ${Math.round((performance.now() - started) / 1000)} s`);
console.log(describeRun(run));
