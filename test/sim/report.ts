import {
  batteryOutOfLimits,
  evTargets,
  failedPlans,
  forecastMae,
  money,
  notReady,
  planless,
  planStarts,
  pricesMissing,
  reusedComputes,
  reusedJobs,
} from './checks.ts';
import type { SiteRun } from './site.ts';

/** How many examples of each kind of violation a report shows. */
const EXAMPLES = 5;

const eur = (v: number) => `${v.toFixed(2)} EUR`;

function listed(title: string, lines: string[]): string[] {
  if (!lines.length) return [`${title}: none`];
  const more = lines.length > EXAMPLES ? [`  … and ${lines.length - EXAMPLES} more`] : [];
  return [`${title}: ${lines.length}`, ...lines.slice(0, EXAMPLES).map((l) => `  ${l}`), ...more];
}

/** A simulated run's figures and violations, for people (the week test prints it, the bench too). */
export function describeRun(run: SiteRun): string {
  const m = money(run);
  const mae = forecastMae(run.steps);
  const targets = evTargets(run);
  const starts = planStarts(run.plans);
  const finished = run.plans.filter((p) => p.status === 'finished').length;
  const idle = planless(run.steps);
  return [
    `${run.steps.length} quarter hours; ${run.plans.length} plans (${finished} finished), ${run.runs.length} automation runs`,
    `quarter hours a device found no plan value for its step: battery ${idle.battery}, car (at home) ${idle.car}`,
    `money over the steps with a battery plan in force: planned ${eur(m.planned)}, realised ${eur(m.realised)}, ` +
      `difference ${eur(m.realised - m.planned)}, band ±${eur(m.band)} (${m.unplannedSteps} steps without a plan)`,
    `whole run: paid ${eur(m.realisedAll)}; without the battery ${eur(m.withoutBattery)}; saved ${eur(m.withoutBattery - m.realisedAll)}`,
    `EV targets met: ${targets.met} of ${targets.total}`,
    `forecast MAE over ${mae.steps} steps: load ${mae.load.toFixed(3)} kW, PV ${mae.pv.toFixed(3)} kW; ` +
      `load−PV as the plans priced it: ${m.planForecastMae.toFixed(3)} kW`,
    ...listed('plans off the 15-minute grid', starts.offGrid),
    ...listed('plans not starting from the measured SoC', starts.socMismatch),
    ...listed('battery outside 10–100 %', batteryOutOfLimits(run.steps)),
    ...listed('EV targets missed without warning and notification', targets.missedSilently),
    ...listed('jobs reused by later runs', reusedJobs(run)),
    ...listed('Computes answered with an earlier job though prices changed', reusedComputes(run)),
    ...listed('hours without a price', run.priceGaps),
    ...listed('plans and Computes failed for want of prices', pricesMissing(run)),
    ...listed('steps not ready', notReady(run.steps)),
    ...listed('failed plans', failedPlans(run.plans)),
  ].join('\n');
}
