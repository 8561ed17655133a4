import type { Knex } from 'knex';
import type { ProcessJobSpec, StorageJobSpec } from '../../contracts/jobSpec.ts';
import { conversion } from '../../domain/units.ts';
import type { BeliefInput } from '../../store/beliefs.ts';
import { unrecorded } from '../../store/auditLog.ts';
import { type SensorInContext } from '../../store/sensors.ts';
import { updateSensor } from '../../store/write/sensors.ts';
import { consumptionSign, type JobSensors } from '../buildProblem.ts';
import { round6 } from '../money.ts';

/** Where and when a job's output beliefs go: the job's grid, its belief time, the scheduler's source. */
export interface BeliefsAt {
  spec: StorageJobSpec | ProcessJobSpec;
  beliefTimeMs: number;
  sourceId: number;
}

/**
 * Power per step (MW, consumption positive) as beliefs of the sensor: in its unit, at its
 * resolution (coarser sensors get the mean of their steps, finer ones the step's value for each
 * of their events), with its sign convention.
 */
export function powerBeliefs({
  sensor,
  powerMw,
  spec,
  beliefTimeMs,
  sourceId,
}: BeliefsAt & { sensor: SensorInContext; powerMw: number[] }): BeliefInput[] {
  const sensorId = sensor.id;
  const resolution = sensor.event_resolution_ms || spec.stepMs;
  const perEvent = Math.max(1, Math.round(resolution / spec.stepMs));
  const eventsPerStep = Math.max(1, Math.round(spec.stepMs / resolution));
  const c = conversion('MW', sensor.unit, resolution) ?? { scale: 1, offset: 0 };
  const sign = consumptionSign(sensor);
  const rows: BeliefInput[] = [];
  for (let i = 0; i + perEvent <= powerMw.length; i += perEvent) {
    const mean = powerMw.slice(i, i + perEvent).reduce((a, b) => a + b, 0) / perEvent;
    for (let k = 0; k < eventsPerStep; k++) {
      rows.push({
        sensorId,
        eventStartMs: spec.startMs + i * spec.stepMs + k * resolution,
        beliefTimeMs,
        sourceId,
        value: round6(sign * (mean * c.scale + c.offset)),
      });
    }
  }
  return rows;
}

/** State of charge at each step boundary, in the SoC sensor's unit (MWh, kWh or % of soc-max). */
export function socBeliefs({
  sensor,
  socMwh,
  socMaxMwh,
  spec,
  beliefTimeMs,
  sourceId,
}: BeliefsAt & { sensor: SensorInContext; socMwh: number[]; socMaxMwh: number }): BeliefInput[] {
  const sensorId = sensor.id;
  const toUnit = (mwh: number) => {
    if (sensor.unit === '%') return (100 * mwh) / socMaxMwh;
    const c = conversion('MWh', sensor.unit, spec.stepMs);
    return c ? mwh * c.scale + c.offset : mwh;
  };
  return socMwh.map((v, j) => ({
    sensorId,
    eventStartMs: spec.startMs + j * spec.stepMs,
    beliefTimeMs,
    sourceId,
    value: round6(toUnit(v)),
  }));
}

/**
 * A power schedule on FlexMeasures 1.0 consumption/production output sensors (a device's
 * `consumption`/`production`, the site's `aggregate-…`): one of them alone gets the whole
 * schedule, both get its consumption and its production part. A device's sensors get their
 * field's `consumption_is_positive` (the trigger refused a contradicting one), so that
 * consumption is stored positive on the one, production on the other; the site's keep their
 * own convention, as 1.0 sets the attribute only on flex-model outputs (so an aggregate-consumption
 * sensor without it stores consumption negative).
 * @param signed whether to set the sensors' sign attributes (a device's outputs; the default).
 */
export async function consumptionProductionBeliefs({
  trx,
  at,
  sensors,
  outputs,
  powerMw,
  signed = true,
}: {
  trx: Knex.Transaction;
  at: BeliefsAt;
  sensors: JobSensors;
  outputs: { consumption?: number; production?: number };
  powerMw: number[];
  signed?: boolean;
}): Promise<BeliefInput[]> {
  const both = outputs.consumption !== undefined && outputs.production !== undefined;
  const rows: BeliefInput[] = [];
  for (const [id, consumptionIsPositive, part] of [
    [outputs.consumption, true, (p: number) => (both ? Math.max(p, 0) : p)],
    [outputs.production, false, (p: number) => (both ? Math.min(p, 0) : p)],
  ] as const) {
    if (id === undefined) continue;
    const stored = await sensors(id);
    if (!signed) {
      rows.push(...powerBeliefs({ ...at, sensor: stored, powerMw: powerMw.map(part) }));
      continue;
    }
    const attributes = { ...stored.attributes, consumption_is_positive: consumptionIsPositive };
    if (stored.attributes.consumption_is_positive !== consumptionIsPositive)
      await updateSensor(trx, unrecorded('the sign convention of a schedule, stored with it'), stored, { attributes });
    rows.push(...powerBeliefs({ ...at, sensor: { ...stored, attributes }, powerMw: powerMw.map(part) }));
  }
  return rows;
}
