import { nextSocMwh, type StorageDevice } from '../../../worker/src/tasks.ts';

type OptionalSeries = NonNullable<StorageDevice['socMinimaMwh']>;

/**
 * Where the SoC can be at the end of the first step, from the reading the plan starts at.
 * - A plan made while its first step is under way (an automation due at 14:55 plans from 14:45)
 *   cannot change what the device does in that step: the device keeps to the setpoint it already
 *   has for it (`setpointMw`, the newest plan stored for the step before this job). From the
 *   reading on, that setpoint takes the SoC to one value at the step's end, and the plan is held
 *   to it: its later steps start where the device will be, not where a re-planned first step
 *   would have taken it (which once left the battery a few Wh under its floor).
 * - Otherwise a reading between the start and the end of the first step (14:17 for a schedule
 *   from 14:15) says little about 14:15 but bounds 14:30: the device can move its stock only as
 *   far as its power allows in the 13 minutes left, as FlexMeasures' newest scheduler projects
 *   an off-tick starting SoC onto the next tick.
 * The plan starts from the reading either way; nothing changes for a SoC that was not measured
 * (a stated soc-at-start), nor for a reading at or before the start of a plan made at its start.
 * @param reading where the starting SoC was read.
 * @param setpointMw the setpoint in force for the first step (MW, consumption positive), when the step is under way.
 * @returns the device's SoC minima and maxima with the first step's bounds merged in.
 */
export function firstStepBounds(
  device: StorageDevice,
  reading: { atMs: number } | undefined,
  setpointMw: number | null,
  grid: { startMs: number; stepMs: number },
): Pick<StorageDevice, 'socMinimaMwh' | 'socMaximaMwh'> {
  const { socMinimaMwh, socMaximaMwh } = device;
  const firstEndMs = grid.startMs + grid.stepMs;
  if (!reading || reading.atMs >= firstEndMs) return { socMinimaMwh, socMaximaMwh };
  if (setpointMw === null && reading.atMs <= grid.startMs) return { socMinimaMwh, socMaximaMwh };
  const hours = (firstEndMs - Math.max(reading.atMs, grid.startMs)) / 3_600_000;
  const soc = device.socAtStartMwh;
  // Where the setpoint takes it, within the device's limits (as the device stops at them).
  const kept =
    setpointMw === null ? null : Math.min(device.socMaxMwh, Math.max(device.socMinMwh, nextSocMwh(device, 0, soc, setpointMw, hours)));
  const lowest = kept ?? Math.max(device.socMinMwh, soc - (device.productionCapacityMw[0] * hours) / device.dischargingEfficiency[0]);
  const highest = kept ?? Math.min(device.socMaxMwh, soc + device.consumptionCapacityMw[0] * hours * device.chargingEfficiency[0]);
  const steps = device.consumptionCapacityMw.length;
  const merged = (series: OptionalSeries | null, bound: number, tighter: (a: number, b: number) => number): OptionalSeries => {
    const out = series ? [...series] : new Array<number | null>(steps).fill(null);
    out[0] = out[0] === null || out[0] === undefined ? bound : tighter(out[0], bound);
    return out;
  };
  return { socMinimaMwh: merged(socMinimaMwh, lowest, Math.max), socMaximaMwh: merged(socMaximaMwh, highest, Math.min) };
}
