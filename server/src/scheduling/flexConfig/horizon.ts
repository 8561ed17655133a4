import type { DateTime } from 'luxon';
import type { Config } from '../../config.ts';
import { formatTimedelta, type IsoDuration } from '../../domain/time.ts';
import type { SensorInContext } from '../../store/sensors.ts';
import { fail, flexError } from './fields.ts';

export interface TriggerInput {
  start: DateTime;
  duration?: IsoDuration;
  /** The schedule's step (FlexMeasures 1.0); else the (smallest) sensor resolution. */
  resolution?: IsoDuration;
  prior?: DateTime;
  flexContext: Record<string, unknown>;
}

/** The schedule's window and step, and the latest end the maximum planning horizon allows. */
export interface Horizon {
  startMs: number;
  endMs: number;
  stepMs: number;
  maxEndMs: number;
}

/** The longest schedule of a sensor of this resolution, as the operator set it (in steps or as a duration). */
export function maxPlanningMs(config: Pick<Config, 'maxPlanningHorizon'>, sensorStepMs: number): number {
  const max = config.maxPlanningHorizon;
  return 'steps' in max ? max.steps * sensorStepMs : max.ms;
}

/**
 * The schedule's window and step.
 * @param sensorStepMs the (smallest) sensor resolution: the maximum horizon counts its steps.
 */
export function horizonOf(
  config: Pick<Config, 'maxPlanningHorizon' | 'planningHorizonMs'>,
  input: Pick<TriggerInput, 'start' | 'duration' | 'resolution'>,
  sensorStepMs: number,
): Horizon {
  const startMs = input.start.toMillis();
  const stepMs = input.resolution?.ms ?? sensorStepMs;
  const maxMs = maxPlanningMs(config, sensorStepMs);
  const tooLong = () => fail('duration', `Duration exceeds the maximum planning horizon of ${maxMs / sensorStepMs} steps.`);
  // Bounded before any date arithmetic: a huge duration (P99999999D) would make the end NaN.
  if (input.duration && input.duration.ms > maxMs) throw tooLong();
  const durationMs = input.duration ? input.start.plus(input.duration.luxon).toMillis() - startMs : config.planningHorizonMs;
  if (durationMs <= 0) throw fail('duration', 'The schedule duration must be positive.');
  if (!Number.isFinite(durationMs) || durationMs > maxMs) throw tooLong();
  return { startMs, endMs: startMs + durationMs, stepMs, maxEndMs: startMs + maxMs };
}

/** A requested schedule resolution must be a whole multiple of each scheduled sensor's, as in 1.0. */
export function checkResolution(input: Pick<TriggerInput, 'resolution'>, sensors: Pick<SensorInContext, 'event_resolution_ms'>[]): void {
  const ms = input.resolution?.ms;
  if (ms === undefined) return;
  for (const s of sensors) {
    if (ms <= 0 || ms % s.event_resolution_ms !== 0) {
      const message = `Resolution of ${formatTimedelta(ms)} is incompatible with the sensor's required resolution of ${formatTimedelta(s.event_resolution_ms)}.`;
      throw flexError({ resolution: [message] });
    }
  }
}
