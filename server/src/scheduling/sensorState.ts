import { formatTimedelta } from '../domain/time.ts';
import { conversion } from '../domain/units.ts';
import { mostRecentBeliefs } from '../store/beliefs.ts';
import type { RowReads } from '../store/rowReads.ts';
import type { SensorsRead } from '../store/sensors.ts';
import { lastMeasurement } from '../store/lastMeasurements.ts';
import type { JobSpec, StorageDeviceSpec, StorageJobSpec } from '../contracts/jobSpec.ts';
import { fail } from './flexConfig/fields.ts';

/**
 * The parts of a trigger that depend on what its sensors hold rather than on the request: an
 * omitted soc-at-start read from the state-of-charge sensor, and the sign attribute of the
 * consumption/production output sensors. Called once the trigger's references are authorized,
 * so that a sensor the caller may not use is refused before its data or attributes answer.
 */

/** 1.0 looks this many schedule steps either side of the start for a state of charge. */
export const SOC_LOOKUP_STEPS = 4;

/**
 * What counts as a measurement of the state of charge by default: not what a scheduler planned
 * or a forecaster predicted (a plan written into the same sensor must never become the next
 * plan's start). A sensor reference's own `source-types` or `exclude-source-types` replace this.
 */
export const NOT_MEASURED = ['scheduler', 'forecaster'];

/**
 * Completes a resolved job.
 * @param beliefTimeMs what is known: the trigger's `prior`, else now.
 * @param maxAgeSteps a reading older than this many steps at the start makes the job warn that the SoC is unknown.
 * @param sensors the unit and resolution of the state-of-charge sensors, as the caller has just read them.
 * @returns the spec with every soc-at-start known; 422 when a state of charge is missing or an
 *   device output sensor's sign attribute contradicts its field (1.0 checks only flex-model outputs).
 */
export async function readSensorState(
  rows: RowReads,
  spec: JobSpec,
  beliefTimeMs: number,
  maxAgeSteps = 2,
  sensors?: SensorsRead,
): Promise<JobSpec> {
  if (spec.scheduler !== 'StorageScheduler') return spec;
  for (const d of spec.devices) {
    await checkOutputSigns(rows, [
      ['consumption', d.consumptionSensorId, true],
      ['production', d.productionSensorId, false],
    ]);
  }
  if (!spec.devices.some((d) => d.socAtStartFromSensor)) return spec;
  const devices: StorageDeviceSpec[] = [];
  for (const { socAtStartFromSensor, ...d } of spec.devices) {
    devices.push(
      socAtStartFromSensor
        ? { ...d, ...(await socAtStart(rows, spec, d, { beliefTimeMs, maxAgeMs: maxAgeSteps * spec.stepMs, sensors })) }
        : d,
    );
  }
  return { ...spec, devices };
}

/**
 * The measured state of charge nearest the schedule start within four schedule steps either side
 * (the later one on a tie), as 1.0 finds it, among measurements only (`NOT_MEASURED`); converted
 * to MWh, a percentage of soc-max. Run at the start, that is the newest measurement before it.
 * Without one, an EV's soc-at-arrival, else a 422.
 */
async function socAtStart(
  rows: RowReads,
  spec: StorageJobSpec,
  d: StorageDeviceSpec,
  { beliefTimeMs, maxAgeMs, sensors }: { beliefTimeMs: number; maxAgeMs: number; sensors?: SensorsRead },
): Promise<Pick<StorageDeviceSpec, 'socAtStartMwh' | 'socReading' | 'socAssumed'>> {
  const read = sensors?.get(d.socSensorId!);
  const sensor = read ? { id: d.socSensorId!, ...read } : (await rows.sensor(d.socSensorId!))!;
  const radiusMs = SOC_LOOKUP_STEPS * spec.stepMs;
  const sourceTypes = spec.sourceTypes?.[sensor.id];
  // What counts as a measurement: the sensor reference's filters, else all but plans and forecasts.
  const counted = { sourceTypes, excludeSourceTypes: spec.excludeSourceTypes?.[sensor.id] ?? (sourceTypes ? undefined : NOT_MEASURED) };
  const beliefs = await mostRecentBeliefs(rows.db, {
    sensorId: sensor.id,
    eventResolutionMs: sensor.event_resolution_ms,
    startMs: spec.startMs - radiusMs,
    endMs: spec.startMs + radiusMs,
    beliefsBeforeMs: beliefTimeMs,
    ...counted,
  });
  const distance = (t: number) => Math.abs(t - spec.startMs);
  const nearest = beliefs.reduce<(typeof beliefs)[number] | undefined>(
    (best, b) => (!best || distance(b.eventStartMs) <= distance(best.eventStartMs) ? b : best),
    undefined,
  );
  if (!nearest) {
    if (d.socAtArrivalMwh !== undefined) {
      // A car that reports no SoC: planned from its stated assumption, said in the job's warnings.
      const last = await lastMeasurement(rows.db, sensor.id, spec.startMs, counted);
      const socAssumed = { sensorId: sensor.id, sinceMs: last?.eventStartMs, lookupMs: radiusMs, valueMwh: d.socAtArrivalMwh };
      return { socAtStartMwh: d.socAtArrivalMwh, socAssumed };
    }
    // A car may be given the SoC it arrives with instead; a battery needs a measurement or soc-at-start.
    const hint = d.evCharger ? ' Give soc-at-start, or the SoC the car is assumed to arrive with as soc-at-arrival.' : '';
    throw fail(
      'state-of-charge',
      `No recent state-of-charge value found for sensor ${sensor.id} within ${formatTimedelta(radiusMs)} of schedule start ${spec.startIso}.${hint}`,
    );
  }
  const socAtStartMwh = toMwh(sensor.unit, nearest.value, d.socMaxMwh, spec.stepMs);
  return { socAtStartMwh, socReading: { sensorId: sensor.id, atMs: nearest.eventStartMs, valueMwh: socAtStartMwh, maxAgeMs } };
}

/** A state of charge in the sensor's unit (an energy, or a percentage of soc-max) in MWh. */
function toMwh(unit: string, value: number, socMaxMwh: number, stepMs: number): number {
  if (unit === '%') return (value / 100) * socMaxMwh;
  const c = conversion(unit, 'MWh', stepMs);
  if (!c) throw fail('state-of-charge', `Cannot convert ${unit} to MWh`);
  return value * c.scale + c.offset;
}

/**
 * 1.0 stores a consumption output consumption-positive and a production output production-positive,
 * recording that in the sensor's `consumption_is_positive`; a sensor that says otherwise is refused.
 */
async function checkOutputSigns(rows: RowReads, outputs: [field: string, id: number | undefined, intended: boolean][]): Promise<void> {
  for (const [field, id, intended] of outputs) {
    if (id === undefined) continue;
    const existing = (await rows.sensor(id))!.attributes.consumption_is_positive;
    if (typeof existing === 'boolean' && existing !== intended) {
      const text = (v: boolean) => (v ? 'True' : 'False');
      throw fail(
        field,
        `Sensor ${id} already has \`consumption_is_positive=${text(existing)}\`, which conflicts with the '${field.replace('-', '_')}_schedule' output schedule (expected \`consumption_is_positive=${text(intended)}\`).`,
      );
    }
  }
}
