import type { StorageDevice } from '../../../worker/src/tasks.ts';

type OptionalSeries = NonNullable<StorageDevice['socMinimaMwh']>;

/**
 * A state of charge measured between the start and the end of the first step (a reading at 14:17
 * for a schedule from 14:15) says little about 14:15 but bounds 14:30: the device can move its
 * stock only as far as its power allows in the 13 minutes left. The plan starts from the reading
 * and the SoC at the first step's end is kept within reach of it, as FlexMeasures' newest
 * scheduler projects an off-tick starting SoC onto the next tick.
 * @param reading where the starting SoC was read; nothing changes for a reading at or before the start.
 * @returns the device's SoC minima and maxima with the first step's bounds merged in.
 */
export function offTickStartBounds(
  device: StorageDevice,
  reading: { atMs: number } | undefined,
  grid: { startMs: number; stepMs: number },
): Pick<StorageDevice, 'socMinimaMwh' | 'socMaximaMwh'> {
  const { socMinimaMwh, socMaximaMwh } = device;
  const firstEndMs = grid.startMs + grid.stepMs;
  if (!reading || reading.atMs <= grid.startMs || reading.atMs >= firstEndMs) return { socMinimaMwh, socMaximaMwh };
  const hours = (firstEndMs - reading.atMs) / 3_600_000;
  const soc = device.socAtStartMwh;
  const lowest = Math.max(device.socMinMwh, soc - (device.productionCapacityMw[0] * hours) / device.dischargingEfficiency[0]);
  const highest = Math.min(device.socMaxMwh, soc + device.consumptionCapacityMw[0] * hours * device.chargingEfficiency[0]);
  const steps = device.consumptionCapacityMw.length;
  const merged = (series: OptionalSeries | null, bound: number, tighter: (a: number, b: number) => number): OptionalSeries => {
    const out = series ? [...series] : new Array<number | null>(steps).fill(null);
    out[0] = out[0] === null || out[0] === undefined ? bound : tighter(out[0], bound);
    return out;
  };
  return { socMinimaMwh: merged(socMinimaMwh, lowest, Math.max), socMaximaMwh: merged(socMaximaMwh, highest, Math.min) };
}
