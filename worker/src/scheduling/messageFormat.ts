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

const OFFSET = /(Z|([+-])(\d{2}):?(\d{2}))$/;

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
  const startMs = startIso === undefined ? Number.NaN : Date.parse(startIso);
  if (startIso === undefined || Number.isNaN(startMs)) return boundary === 0 ? 'the start' : `the end of step ${boundary - 1}`;
  const match = OFFSET.exec(startIso);
  const offsetMinutes = match === null || match[1] === 'Z' ? 0 : (match[2] === '-' ? -1 : 1) * (Number(match[3]) * 60 + Number(match[4]));
  const instantMs = startMs + Math.round(boundary * problem.stepHours * 3_600_000);
  const local = new Date(instantMs + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const abs = Math.abs(offsetMinutes);
  const sign = offsetMinutes < 0 ? '-' : '+';
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
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
