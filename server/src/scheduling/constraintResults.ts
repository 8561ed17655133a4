import type { DeviceConstraints } from '../contracts/responses.ts';
import { softCapacity, type StorageProblem, type StorageSchedule } from '../../../worker/src/tasks.ts';

/**
 * The soft constraints of a storage schedule as FlexMeasures 1.0 reports them with a finished job:
 * per device and kind, every step where the constraint was breached (`unresolved`, with its
 * violation), or — when none was — every step with its margin (`resolved`).
 *
 * - `soc-minima`, `soc-maxima`: the scheduled SoC at the constraint's instant (the end of its step).
 * - `soc-targets`: two-sided, so only misses are reported (the absolute deviation), never margins.
 * - `consumption-capacity`, `production-capacity` (Flexsite's addition): the device's power
 *   against a capacity made soft by a breach price; hard capacities cannot be breached.
 *
 * Breaches that round to zero at the reported precision (1e-6 kWh or kW) count as met, so solver
 * round-off never shows as a violation. Site capacities and peaks are not reported, as in 1.0.
 */

/** What a report needs besides the problem and its schedule: where the steps are, whose devices they are. */
export interface ReportContext {
  startMs: number;
  stepMs: number;
  devices: { sensorId: number; assetId: number }[];
}

type Kind = Exclude<keyof DeviceConstraints, 'asset' | 'sensor'>;
type Slot = { datetime: string; violation?: string; margin?: string };

/** 1e-6 of the reported unit (kWh, kW), as 1.0 rounds. */
const rounded = (mega: number) => Math.round(mega * 1e9) / 1e6;
/** A positive amount in kWh or kW, written as Python writes floats ("20.0 kWh"). */
const amount = (mega: number, unit: 'kWh' | 'kW') => {
  const v = rounded(Math.abs(mega));
  return `${Number.isInteger(v) ? v.toFixed(1) : String(v)} ${unit}`;
};

/**
 * @param problem the problem as solved.
 * @param schedule its schedule.
 * @param at the steps' instants and the devices' sensors and assets, in problem order.
 * @returns the `unresolved` and `resolved` lists, with an entry only for devices that have something to report.
 */
export function constraintResults(
  problem: StorageProblem,
  schedule: StorageSchedule,
  at: ReportContext,
): { unresolved: DeviceConstraints[]; resolved: DeviceConstraints[] } {
  const unresolved: DeviceConstraints[] = [];
  const resolved: DeviceConstraints[] = [];
  // A SoC constraint on step j holds at the step's end; a power one during the step, named by its start.
  const endOf = (j: number) => new Date(at.startMs + (j + 1) * at.stepMs).toISOString().replace(/\.000Z$/, '+00:00');
  const startOf = (j: number) => new Date(at.startMs + j * at.stepMs).toISOString().replace(/\.000Z$/, '+00:00');

  problem.devices.forEach((device, d) => {
    const soc = schedule.devices[d].socMwh.slice(1);
    const power = schedule.devices[d].powerMw;
    const breached: Partial<Record<Kind, Slot[]>> = {};
    const met: Partial<Record<Kind, Slot[]>> = {};
    /**
     * `excess(j)` > 0 is a breach; ≤ 0 a margin of −excess.
     * @param how.when the instant a step's figure is reported at (a SoC at the step's end, a power at its start).
     */
    const judge = (
      kind: Kind,
      limit: readonly (number | null)[] | null,
      how: { excess: (j: number, limit: number) => number; unit: 'kWh' | 'kW'; when: (j: number) => string; withMargins?: boolean },
    ) => {
      const { excess, unit, when, withMargins = true } = how;
      if (!limit) return;
      const steps = limit.flatMap((q, j) => (q === null ? [] : [{ j, e: excess(j, q) }]));
      const violations = steps.filter((s) => rounded(s.e) > 0);
      if (violations.length) breached[kind] = violations.map((s) => ({ datetime: when(s.j), violation: amount(s.e, unit) }));
      else if (withMargins && steps.length) met[kind] = steps.map((s) => ({ datetime: when(s.j), margin: amount(Math.min(0, s.e), unit) }));
    };
    judge('soc-minima', device.socMinimaMwh, { excess: (j, q) => q - soc[j], unit: 'kWh', when: endOf });
    judge('soc-maxima', device.socMaximaMwh, { excess: (j, q) => soc[j] - q, unit: 'kWh', when: endOf });
    judge('soc-targets', device.socTargetsMwh, { excess: (j, q) => Math.abs(soc[j] - q), unit: 'kWh', when: endOf, withMargins: false });
    if (softCapacity(device.consumptionCapacityMw, device.breach?.consumption)) {
      judge('consumption-capacity', device.consumptionCapacityMw, {
        excess: (j, q) => Math.max(power[j], 0) - q,
        unit: 'kW',
        when: startOf,
      });
    }
    if (softCapacity(device.productionCapacityMw, device.breach?.production)) {
      judge('production-capacity', device.productionCapacityMw, {
        excess: (j, q) => Math.max(-power[j], 0) - q,
        unit: 'kW',
        when: startOf,
      });
    }
    const who = { asset: at.devices[d].assetId, sensor: at.devices[d].sensorId };
    if (Object.keys(breached).length) unresolved.push({ ...who, ...breached });
    if (Object.keys(met).length) resolved.push({ ...who, ...met });
  });
  return { unresolved, resolved };
}
