import type { DeviceConstraints, JobWarning } from '../contracts/responses.ts';
import type { StorageDeviceSpec } from '../contracts/jobSpec.ts';
import { instantMs } from '../domain/time.ts';

/**
 * The warnings of a finished scheduling job. FlexMeasures extends inputs that do not cover the
 * schedule and only logs it; Flexsite keeps the same numbers but says what it did in the job
 * result, so that the operator sees a schedule planned on made-up inputs as such.
 */

/** Where a series is read on the schedule grid. */
export interface GridAt {
  startMs: number;
  stepMs: number;
}

type Period = NonNullable<JobWarning['periods']>[number];

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * @param values one value per step, null where unknown.
 * @returns the runs of unknown steps as periods [start, end).
 */
export function unknownPeriods(values: readonly (number | null)[], at: GridAt): Period[] {
  const periods: Period[] = [];
  let from: number | null = null;
  values.forEach((v, j) => {
    if (v === null && from === null) from = j;
    if (v !== null && from !== null) {
      periods.push({ start: iso(at.startMs + from * at.stepMs), end: iso(at.startMs + j * at.stepMs) });
      from = null;
    }
  });
  if (from !== null) periods.push({ start: iso(at.startMs + from * at.stepMs), end: iso(at.startMs + values.length * at.stepMs) });
  return periods;
}

/** Who an input is: its field, and its sensor when it is read from one. */
export interface InputAt {
  field: string;
  sensorId?: number;
  sensorName?: string;
}

const named = (input: InputAt) =>
  input.sensorId === undefined ? `\`${input.field}\`` : `sensor ${input.sensorId}${input.sensorName ? ` (${input.sensorName})` : ''}`;

/**
 * A price series with unknown steps, extended as FlexMeasures extends it: the first known value
 * backwards, the last one forwards, a gap inside with the value before it.
 * @returns the warning, or undefined when every step is known.
 */
export function extendedPrices(values: readonly (number | null)[], input: InputAt, at: GridAt): JobWarning | undefined {
  const periods = unknownPeriods(values, at);
  if (!periods.length) return undefined;
  const how: string[] = [];
  if (values[0] === null) how.push('the first known price backwards');
  if (values[values.length - 1] === null) how.push('the last known price forwards');
  const inner = periods.length - (values[0] === null ? 1 : 0) - (values[values.length - 1] === null ? 1 : 0);
  if (inner > 0) how.push('gaps with the price before them');
  return {
    code: 'input-extended',
    field: input.field,
    ...(input.sensorId !== undefined && { sensor_id: input.sensorId }),
    message: `Prices of ${named(input)} do not cover the whole schedule; extended with ${how.join(', ')}.`,
    periods,
  };
}

/** @returns a warning for an inflexible device's power taken as zero where unknown, or undefined when all is known. */
export function assumedZeroPower(values: readonly (number | null)[], input: InputAt, at: GridAt): JobWarning | undefined {
  const periods = unknownPeriods(values, at);
  if (!periods.length) return undefined;
  return {
    code: 'input-assumed',
    field: input.field,
    ...(input.sensorId !== undefined && { sensor_id: input.sensorId }),
    message: `Power of the inflexible device ${named(input)} is unknown for part of the schedule; taken as zero there.`,
    periods,
  };
}

/**
 * A site whose schedule counts production (solar panels) but no consumption: the plan takes the
 * site's own use as zero, so every kWh of solar it does not store counts as export at the
 * production price, and a battery that could cover the evening load idles. Said, not silent.
 * @param signed the inflexible devices with the sign their values are read with (1 consumption).
 * @returns the warning, or undefined when a consumption is known or there is no production.
 */
export function noHouseLoad(signed: readonly { input: InputAt; sign: 1 | -1 }[]): JobWarning | undefined {
  const production = signed.filter((s) => s.sign === -1).map((s) => s.input);
  if (!production.length || signed.some((s) => s.sign === 1)) return undefined;
  return {
    code: 'load-unknown',
    field: 'inflexible-device-sensors',
    message:
      `The site's production (${production.map(named).join(', ')}) is known but no house load: its consumption is taken as zero, ` +
      'so solar power not stored counts as export at the production price. Add the house load (Add device, House load) to plan against it.',
  };
}

/**
 * A load that consumes nothing at any step of a schedule a day long or longer but produces at every
 * one: what a house load uploaded with the other sign convention looks like (the plan then sells
 * what the house uses). Shorter windows are left alone: PV is negative all through a sunny noon.
 * @param values the device's power per step, consumption positive (MW), null where unknown.
 * @param stored how the sensor's own values are signed, named in the message.
 * @returns the warning, or undefined unless every step is known and below zero.
 */
export function loadNegativeThroughout(
  values: readonly (number | null)[],
  input: InputAt & { stepMs: number },
  stored: 'consumption positive' | 'production positive',
): JobWarning | undefined {
  if (values.length * input.stepMs < 86_400_000 || !values.every((v) => v !== null && v < 0)) return undefined;
  return {
    code: 'load-negative',
    field: input.field,
    ...(input.sensorId !== undefined && { sensor_id: input.sensorId }),
    message:
      `The load ${named(input)} is negative (producing) in every step of the schedule, read as its values are stored ` +
      `(${stored}). If it is a load, its sign is probably wrong: check the sensor's sign convention.`,
  };
}

/** The fallback scheduler's result: not optimal, a simple policy. */
export const fallbackUsed: JobWarning = {
  code: 'fallback',
  message:
    'The optimal schedule was infeasible; this is the fallback scheduler’s simple charge/discharge policy, which may break constraints.',
};

const kindNames: Record<string, string> = {
  'soc-minima': 'SoC minima',
  'soc-maxima': 'SoC maxima',
  'soc-targets': 'SoC targets',
  'consumption-capacity': 'Consumption capacity',
  'production-capacity': 'Production capacity',
};

/**
 * One warning per device and kind of soft constraint that was breached, with its largest violation.
 * @param unresolved the job's `unresolved` list.
 * @param stepMs the step length: a SoC constraint's instant is the end of its step.
 * @param names each device's sensor as people name it ("Home battery power"): the message is read
 *   on screen and the operator knows devices by name, not by sensor id (`sensor_id` keeps the id).
 */
export function unresolvedConstraints(
  unresolved: readonly DeviceConstraints[],
  stepMs: number,
  names: ReadonlyMap<number, { name: string }>,
): JobWarning[] {
  return unresolved.flatMap(({ asset: _asset, sensor, ...kinds }) =>
    Object.entries(kinds).flatMap(([kind, slots]) => {
      if (!slots?.length) return [];
      const worst = slots.reduce((a, b) => (parseFloat(b.violation ?? '0') > parseFloat(a.violation ?? '0') ? b : a));
      // SoC slots name the instant the constraint holds at (a step's end); capacities a step's start.
      const soc = kind.startsWith('soc-');
      return [
        {
          // A missed target is the news people wait for: its own code, as on screen and in notifications.
          code: kind === 'soc-targets' ? ('target-missed' as const) : ('constraint-unresolved' as const),
          field: kind,
          sensor_id: sensor,
          message: `${kindNames[kind] ?? kind} of ${names.get(sensor)?.name ?? `sensor ${sensor}`} not met at ${slots.length} step(s), by up to ${worst.violation}.`,
          periods: slots.map((s) => {
            // The worker writes these instants itself (constraintResults), always with an offset.
            const t = instantMs(s.datetime) ?? Number.NaN;
            return soc ? { start: iso(t - stepMs), end: iso(t) } : { start: iso(t), end: iso(t + stepMs) };
          }),
        },
      ];
    }),
  );
}

/**
 * The state of charge at the start, read from a sensor at another instant than the start; when
 * that measurement is older than its limit, the SoC counts as unknown since then and the plan
 * says what it assumed instead.
 * @returns the warning, or undefined when the reading is at the start itself.
 */
export function socFromReading(
  reading: { sensorId: number; atMs: number; valueMwh?: number; maxAgeMs?: number },
  startMs: number,
): JobWarning | undefined {
  if (reading.atMs === startMs) return undefined;
  if (reading.maxAgeMs !== undefined && reading.valueMwh !== undefined && startMs - reading.atMs > reading.maxAgeMs) {
    const kwh = Math.round(reading.valueMwh * 1e6) / 1e3;
    return {
      code: 'soc-unknown',
      field: 'soc-at-start',
      sensor_id: reading.sensorId,
      message: `SoC unknown since ${iso(reading.atMs)}: sensor ${reading.sensorId} has no measurement in the ${Math.round(reading.maxAgeMs / 60_000)} min before the start; assumed ${kwh} kWh, its last measurement.`,
      periods: [{ start: iso(reading.atMs), end: iso(startMs) }],
    };
  }
  const minutes = Math.round(Math.abs(startMs - reading.atMs) / 60_000);
  return {
    code: 'soc-reading',
    field: 'soc-at-start',
    sensor_id: reading.sensorId,
    message: `State of charge at the start taken from sensor ${reading.sensorId}'s reading ${minutes} min ${reading.atMs < startMs ? 'before' : 'after'} the start.`,
    periods: [{ start: iso(Math.min(reading.atMs, startMs)), end: iso(Math.max(reading.atMs, startMs)) }],
  };
}

/**
 * An EV's state of charge at the start taken from its flex-model's assumption (soc-at-arrival),
 * its sensor having no measurement near the start: a plan on an assumed input, said as such.
 */
export function socAssumedOnArrival(assumed: NonNullable<StorageDeviceSpec['socAssumed']>, startMs: number): JobWarning {
  const kwh = Math.round(assumed.valueMwh * 1e6) / 1e3;
  const since = assumed.sinceMs === undefined ? '' : ` since ${iso(assumed.sinceMs)}`;
  return {
    code: 'soc-unknown',
    field: 'soc-at-arrival',
    sensor_id: assumed.sensorId,
    message: `SoC unknown${since}: sensor ${assumed.sensorId} has no measurement within ${Math.round(assumed.lookupMs / 60_000)} min of the start; assumed ${kwh} kWh, the flex-model's soc-at-arrival.`,
    ...(assumed.sinceMs !== undefined && { periods: [{ start: iso(assumed.sinceMs), end: iso(startMs) }] }),
  };
}
