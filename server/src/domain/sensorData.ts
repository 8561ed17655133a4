import { formatTimedelta } from './time.ts';
import { conversion, isEnergyPriceUnit, isStockUnit } from './units.ts';

/** Upper bound on the values of one upload or download: a leap year of one-minute values. */
export const MAX_VALUES = 527_040;

/**
 * Largest magnitude stored, in the sensor's unit: far beyond any measurement, yet sums, means
 * and unit conversions of stored values on the way out stay finite (1e308 would not).
 */
export const MAX_MAGNITUDE = 1e100;

// Any non-zero length tells whether two units convert at all (stock ↔ flow needs one).
const HOUR = 3_600_000;

/** Message types a sender may declare for extra checks. */
export const POST_TYPES = [
  'PostSensorDataRequest',
  'PostMeterDataRequest',
  'PostPrognosisRequest',
  'PostPriceDataRequest',
  'PostWeatherDataRequest',
] as const;
export type PostType = (typeof POST_TYPES)[number];

/** The sensor properties that shape its data. */
export interface SensorShape {
  unit: string;
  event_resolution_ms: number;
}

/** When the uploaded values were known: a fixed time, a horizon before each event's end, or now. */
export type BeliefTiming = { priorMs: number } | { horizonMs: number } | { nowMs: number };

/** Values at their event starts, `frequencyMs` apart (or less, with gaps), as a client sent them. */
export interface Upload {
  points: readonly { startMs: number; value: number; beliefTimeMs?: number }[];
  /** The spacing of the data: each value covers this long. */
  frequencyMs: number;
  unit: string;
  timing: BeliefTiming;
  type?: PostType;
}

/** One event at the sensor's resolution, in the sensor's unit, with its belief time. */
export interface UploadEvent {
  eventStartMs: number;
  beliefTimeMs: number;
  value: number;
}

/** The reference's message for values spaced `spacingMs` apart on a sensor of resolution `resolutionMs`. */
const resolutionMismatch = (spacingMs: number, resolutionMs: number) =>
  `Resolution of ${formatTimedelta(spacingMs)} is incompatible with the sensor's required resolution of ${formatTimedelta(resolutionMs)}.`;

/** Field messages, `_schema` for problems of the upload as a whole. */
export type Problems = Record<string, string[]>;

/** The reference's message for a unit that does not convert to or from the sensor's. */
export const unitMismatch = (sensor: SensorShape, unit: string) =>
  `Required unit for this sensor is ${sensor.unit}, got incompatible unit: ${unit}`;

/**
 * Checks an upload against the sensor and turns it into events at the sensor's resolution in
 * the sensor's unit. Coarser data is upsampled: rates (kW) repeat, amounts (kWh) are split
 * evenly; a stock ↔ flow conversion uses the data's own spacing, so that 4 kWh over an hour
 * is 4 kW whatever the sensor's resolution.
 * @param sensor unit and resolution of the sensor.
 * @param upload the values and how to read them.
 * @returns the events, or the problems (as the reference words them).
 */
export function uploadEvents(sensor: SensorShape, upload: Upload): { events: UploadEvent[] } | { problems: Problems } {
  const res = sensor.event_resolution_ms;
  const f = upload.frequencyMs;
  const schema: string[] = [];
  const c = conversion(upload.unit, sensor.unit, res === 0 ? 0 : f || res);
  if (!c) schema.push(unitMismatch(sensor, upload.unit));
  if ((upload.type === 'PostMeterDataRequest' || upload.type === 'PostPrognosisRequest') && !conversion(upload.unit, 'MW', HOUR)) {
    schema.push(`The unit required for this message type should be convertible to MW, got incompatible unit: ${upload.unit}`);
  } else if (upload.type === 'PostPriceDataRequest' && !isEnergyPriceUnit(upload.unit)) {
    schema.push(
      `The unit required for this message type should be convertible to an energy price unit, got incompatible unit: ${upload.unit}`,
    );
  }
  if (res > 0 && (f <= 0 || f % res !== 0)) {
    schema.push(resolutionMismatch(f, res));
  }
  if (schema.length || !c) return { problems: { _schema: schema } };

  const repeat = res > 0 ? f / res : 1;
  if (upload.points.length * repeat > MAX_VALUES) {
    return { problems: { duration: [`Too many values at the sensor's resolution: at most ${MAX_VALUES} per upload.`] } };
  }
  const share = isStockUnit(sensor.unit) ? 1 / repeat : 1;
  const events: UploadEvent[] = [];
  let meterInFuture = false;
  let prognosisInPast = false;
  for (const point of upload.points) {
    const value = (point.value * c.scale + c.offset) * share;
    if (!(Math.abs(value) <= MAX_MAGNITUDE)) {
      return {
        problems: { values: [`${point.value} ${upload.unit} is out of range: at most ${MAX_MAGNITUDE} ${sensor.unit} in magnitude.`] },
      };
    }
    for (let k = 0; k < repeat; k++) {
      const eventStartMs = point.startMs + k * res;
      const eventEndMs = eventStartMs + res;
      const t = upload.timing;
      const beliefTimeMs = point.beliefTimeMs ?? ('priorMs' in t ? t.priorMs : 'horizonMs' in t ? eventEndMs - t.horizonMs : t.nowMs);
      const horizon = eventEndMs - beliefTimeMs;
      if (horizon > 0) meterInFuture = true;
      if (horizon < 0) prognosisInPast = true;
      events.push({ eventStartMs, beliefTimeMs, value });
    }
  }
  if (upload.type === 'PostMeterDataRequest' && meterInFuture) return { problems: { _schema: ['Meter data must lie in the past.'] } };
  if (upload.type === 'PostPrognosisRequest' && prognosisInPast) return { problems: { _schema: ['Prognoses must lie in the future.'] } };
  return { events };
}

/**
 * Spreads a JSON upload's values evenly over its duration (nulls keep their place and are
 * dropped), then checks and converts them with `uploadEvents`.
 * @returns the events, or the problems.
 */
export function evenlySpacedEvents(
  sensor: SensorShape,
  body: { values: readonly (number | null)[]; startMs: number; durationMs: number; unit: string; timing: BeliefTiming; type?: PostType },
): { events: UploadEvent[] } | { problems: Problems } {
  const n = body.values.length;
  if (body.durationMs % n !== 0) {
    // Such a spacing is never a multiple of a resolution; the reference says so in these words.
    const res = sensor.event_resolution_ms;
    if (res > 0) return { problems: { _schema: [resolutionMismatch(body.durationMs / n, res)] } };
    return { problems: { values: [`${n} values cannot be spread evenly over the duration.`] } };
  }
  const frequencyMs = body.durationMs / n;
  if (n > 1 && frequencyMs === 0) {
    return {
      problems: {
        _schema: [
          'Cannot save multiple instantaneous values that overlap. That is, two values spanning the same moment (a zero duration). Try sending a single value or definining a non-zero duration.',
        ],
      },
    };
  }
  const points: { startMs: number; value: number }[] = [];
  for (let i = 0; i < n; i++) {
    const value = body.values[i];
    if (value !== null) points.push({ startMs: body.startMs + i * frequencyMs, value });
  }
  return uploadEvents(sensor, { points, frequencyMs, unit: body.unit, timing: body.timing, type: body.type });
}

/** Message types a downloader may declare for extra checks. */
export const GET_TYPES = ['GetSensorDataRequest', 'GetMeterDataRequest', 'GetPrognosisRequest', 'GetPriceDataRequest'] as const;
export type GetType = (typeof GET_TYPES)[number];

/**
 * Checks that a download's unit fits the sensor and the declared message type.
 * @returns the problems, as the reference words them (none: an empty list).
 */
export function downloadProblems(sensor: SensorShape, unit: string, type?: GetType): string[] {
  const problems: string[] = [];
  if (!conversion(sensor.unit, unit, HOUR)) problems.push(unitMismatch(sensor, unit));
  if ((type === 'GetMeterDataRequest' || type === 'GetPrognosisRequest') && !conversion('MW', unit, HOUR)) {
    problems.push(`The unit requested for this message type should be convertible from MW, got incompatible unit: ${unit}`);
  } else if (type === 'GetPriceDataRequest' && !isEnergyPriceUnit(unit)) {
    problems.push(
      `The unit requested for this message type should be convertible from an energy price unit, got incompatible unit: ${unit}`,
    );
  }
  return problems;
}
