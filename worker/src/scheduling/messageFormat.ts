import { DateTime } from 'luxon';
import type { StorageProblem } from './storageProblem.ts';

/** A number without floating-point noise: at most 6 significant digits. */
function plain(value: number): string {
  return String(Number(value.toPrecision(6)));
}

/**
 * Formats an energy in the problem's own SoC unit.
 *
 * @param problem the problem (its display hints choose kWh or MWh).
 * @param energyMwh the energy (MWh).
 * @returns e.g. "18.2 kWh".
 */
export function formatEnergy(problem: StorageProblem, energyMwh: number): string {
  return problem.display?.socUnit === 'kWh' ? `${plain(energyMwh * 1000)} kWh` : `${plain(energyMwh)} MWh`;
}

/**
 * Formats a power in the unit matching the problem's SoC unit (kWh → kW, MWh → MW).
 *
 * @param problem the problem.
 * @param powerMw the power (MW).
 * @returns e.g. "25 kW".
 */
export function formatPower(problem: StorageProblem, powerMw: number): string {
  return problem.display?.socUnit === 'kWh' ? `${plain(powerMw * 1000)} kW` : `${plain(powerMw)} MW`;
}

/**
 * Names the instant start + n·Δ, as an ISO 8601 string in the offset of the schedule start
 * (e.g. "2015-01-02T16:00:00+00:00"), or by step number when no start was given.
 *
 * @param problem the problem.
 * @param boundary n, from 0 (the start) to T (the end).
 * @returns the instant's label.
 */
export function formatInstant(problem: StorageProblem, boundary: number): string {
  const startIso = problem.display?.startIso;
  // The server wrote this start (formatStart); the worker reads no text a user wrote.
  const start = startIso === undefined ? undefined : DateTime.fromISO(startIso, { setZone: true });
  if (!start?.isValid) return boundary === 0 ? 'the start' : `the end of step ${boundary - 1}`;
  return start.plus({ milliseconds: Math.round(boundary * problem.stepHours * 3_600_000) }).toFormat("yyyy-MM-dd'T'HH:mm:ssZZ");
}

/**
 * Prefix naming the device in messages, empty for a single unnamed device.
 *
 * @param problem the problem.
 * @param device the device index.
 * @returns e.g. "battery 2: " or "".
 */
export function devicePrefix(problem: StorageProblem, device: number): string {
  const name = problem.devices[device].name;
  if (name !== undefined) return `${name}: `;
  return problem.devices.length > 1 ? `device ${device}: ` : '';
}
