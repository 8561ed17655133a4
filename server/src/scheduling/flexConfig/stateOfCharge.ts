import type { DateTime } from 'luxon';
import type { z } from 'zod';
import type { socConstraint, StorageFlexModel, TimedSegment } from '../../contracts/flexModel.ts';
import type { SocConstraintSpec } from '../../contracts/jobSpec.ts';
import { formatStart, formatTimedelta, storedInstantMs } from '../../domain/time.ts';
import { conversion, readQuantity } from '../../domain/units.ts';
import type { Asset } from '../../store/assets.ts';
import type { RowReads } from '../../store/rowReads.ts';
import type { SensorInContext } from '../../store/sensors.ts';
import { SOC_LOOKUP_STEPS } from '../sensorState.ts';
import { asNumber, attribute, fail, flexError, referencedSensor } from './fields.ts';
import type { Horizon } from './horizon.ts';
import { segmentWindow, type Resolving } from './quantities.ts';

/** SoC constraints given as a sensor (FlexMeasures 1.0), as `{ [key]: { sensor, unit } }`; nothing for a list. */
async function socConstraintSensor<K extends string>(
  rows: RowReads,
  field: string,
  key: K,
  value: StorageFlexModel['soc-targets'],
): Promise<Partial<Record<K, { sensor: number; unit: 'MWh' }>>> {
  if (value === undefined || Array.isArray(value)) return {};
  const s = await referencedSensor(rows, field, value.sensor);
  if (!conversion(s.unit, 'MWh', s.event_resolution_ms || 3600_000)) throw fail(field, `Cannot convert ${s.unit} to MWh`);
  return { [key]: { sensor: s.id, unit: 'MWh' } } as Partial<Record<K, { sensor: number; unit: 'MWh' }>>;
}

/** Reads SoC constraints into MWh, checking windows and the planning horizon. */
export function socConstraints(
  field: string,
  list: z.output<typeof socConstraint>[] | undefined,
  socUnit: 'MWh' | 'kWh',
  horizon: Pick<Horizon, 'maxEndMs'>,
): SocConstraintSpec[] {
  return (list ?? []).map((c, i) => {
    const valueMwh = readQuantity(c.value, 'MWh', socUnit);
    if (typeof valueMwh !== 'number') throw flexError({ [field]: { [i]: { value: [valueMwh.error] } } });
    let spec: SocConstraintSpec;
    if ('datetime' in c) spec = { valueMwh, atMs: c.datetime.toMillis() };
    else {
      const end = 'end' in c ? c.end : c.start.plus(c.duration.luxon);
      if (c.start > end) throw flexError(`Start ${formatStart(c.start)} cannot be after end ${formatStart(end)}.`);
      spec = { valueMwh, startMs: c.start.toMillis(), endMs: end.toMillis() };
    }
    const lastMs = 'atMs' in spec ? spec.atMs : spec.endMs;
    if (lastMs > horizon.maxEndMs) {
      throw flexError({
        [field]: {
          [i]: [`Target datetime exceeds the maximum planning horizon (${new Date(horizon.maxEndMs).toISOString()}).`],
        },
      });
    }
    return spec;
  });
}

/** The last instant a list of SoC constraints binds; -Infinity for none. */
export const lastInstant = (list: SocConstraintSpec[]) => Math.max(-Infinity, ...list.map((c) => ('atMs' in c ? c.atMs : c.endMs)));

/** The SoC unit: as given, else implied by the power sensor's unit (a kW sensor means kWh). */
export function socUnitOf(model: Pick<StorageFlexModel, 'soc-unit'>, sensor: Pick<SensorInContext, 'unit'>): 'MWh' | 'kWh' {
  if (model['soc-unit']) return model['soc-unit'];
  if (sensor.unit === 'kW' || sensor.unit === 'kWh') return 'kWh';
  return 'MWh';
}

/**
 * soc-at-start from a state of charge given as a time series (1.0): the value of the segment
 * nearest the schedule start (one containing it, ends included) within four steps, the later
 * segment on a tie; else a 422, as for a stale sensor.
 * @param toMwh reads a segment's value (its index, for the message) into MWh.
 */
export function socAtStartFromSeries(
  series: TimedSegment[],
  start: DateTime,
  stepMs: number,
  toMwh: (i: number, value: number | string) => number,
): number {
  const t = start.toMillis();
  const radiusMs = SOC_LOOKUP_STEPS * stepMs;
  let best: { i: number; distance: number; startMs: number } | undefined;
  series.forEach((segment, i) => {
    const [from, to] = segmentWindow(segment);
    const distance = t < from ? from - t : t > to ? t - to : 0;
    if (distance > radiusMs) return;
    if (!best || distance < best.distance || (distance === best.distance && from >= best.startMs)) best = { i, distance, startMs: from };
  });
  if (!best) {
    throw fail(
      'state-of-charge',
      `No recent state-of-charge value found within ${formatTimedelta(radiusMs)} of schedule start ${formatStart(start)}.`,
    );
  }
  return toMwh(best.i, series[best.i].value);
}

/** Rounding of conversions between kWh and MWh is no breach. */
const SOC_EPSILON_MWH = 1e-9;

/**
 * soc-min and soc-max are hard in both dialects (no relax flag softens them): limits that cross,
 * or a given soc-at-start above the maximum, leave no schedule the job could find, so the
 * trigger is refused (every such field at once) instead of queueing a job bound to fail.
 */
function checkSocBounds(model: StorageFlexModel, soc: { socMin: number; socMax: number; socAtStart: number }): void {
  const problems: Record<string, string[]> = {};
  const shown = model['soc-max'] === undefined ? `${soc.socMax} MWh` : String(model['soc-max']);
  const above = `Must not exceed soc-max (${shown}).`;
  if (soc.socMin > soc.socMax + SOC_EPSILON_MWH) problems['soc-min'] = [above];
  if (model['soc-at-start'] !== undefined && soc.socAtStart > soc.socMax + SOC_EPSILON_MWH) problems['soc-at-start'] = [above];
  if (Object.keys(problems).length) throw flexError(problems);
}

/** The asset types of EV chargers: the devices that may plan from an assumed arrival SoC. */
const evTypes = new Set(['one-way_evse', 'two-way_evse']);

/** The device a state of charge is resolved for: its power sensor, asset and flex-model. */
export interface DeviceInput {
  sensor: SensorInContext;
  asset: Asset;
  model: StorageFlexModel;
}

/**
 * A device's state of charge in MWh: its bounds, where it starts (given, from a state-of-charge
 * series, stored on the sensor for this start, or 0), and its targets, minima and maxima, listed
 * or from sensors.
 * @returns the spec's SoC fields, the state-of-charge sensor named, and whether the SoC at the
 *   start is to be read from it.
 */
export async function socSpec({ rows, horizon, start }: Resolving & { start: DateTime }, { sensor, asset, model }: DeviceInput) {
  const socUnit = socUnitOf(model, sensor);
  const inMwh = (field: string, v: number | string | undefined, fallbackMwh?: number): number | undefined => {
    if (v === undefined) return fallbackMwh;
    const n = readQuantity(v, 'MWh', socUnit);
    if (typeof n !== 'number') throw fail(field, n.error);
    return n;
  };
  const listed = (field: 'soc-targets' | 'soc-minima' | 'soc-maxima') => {
    const v = model[field];
    return socConstraints(field, Array.isArray(v) ? v : undefined, socUnit, horizon);
  };
  const targets = listed('soc-targets');
  const minima = listed('soc-minima');
  const maxima = listed('soc-maxima');
  const socConstraintSensors = {
    ...(await socConstraintSensor(rows, 'soc-targets', 'targets', model['soc-targets'])),
    ...(await socConstraintSensor(rows, 'soc-minima', 'minima', model['soc-minima'])),
    ...(await socConstraintSensor(rows, 'soc-maxima', 'maxima', model['soc-maxima'])),
  };
  const socMin = inMwh('soc-min', model['soc-min'], asNumber(attribute(sensor, asset, 'min_soc_in_mwh')) ?? 0)!;
  if (socMin < 0) throw fail('soc-min', 'Must be greater than or equal to 0.');
  const highestTarget = targets.length ? Math.max(...targets.map((t) => t.valueMwh)) : undefined;
  const socMax = inMwh('soc-max', model['soc-max'], asNumber(attribute(sensor, asset, 'max_soc_in_mwh')) ?? highestTarget);
  if (socMax === undefined) throw flexError('Need maximal permitted state of charge, please specify soc-max or some soc-targets.');
  const storedSoc =
    storedInstantMs(attribute(sensor, asset, 'soc_datetime')) === start.toMillis()
      ? asNumber(attribute(sensor, asset, 'soc_in_mwh'))
      : undefined;
  const stateOfCharge = model['state-of-charge'];
  const socSeries = Array.isArray(stateOfCharge) ? stateOfCharge : undefined;
  const socRef = Array.isArray(stateOfCharge) ? undefined : stateOfCharge;
  const fromSeries =
    model['soc-at-start'] === undefined && socSeries
      ? socAtStartFromSeries(socSeries, start, horizon.stepMs, (i, v) => inMwh(`state-of-charge.${i}.value`, v)!)
      : undefined;
  const socAtStart = fromSeries ?? inMwh('soc-at-start', model['soc-at-start'], storedSoc ?? 0)!;
  checkSocBounds(model, { socMin, socMax, socAtStart });
  // 1.0 reads an omitted soc-at-start from the state-of-charge sensor, once that is authorized (readSensorState).
  const fromSocSensor = model['soc-at-start'] === undefined && socRef !== undefined;
  // A car that reports no SoC may plan from what it is assumed to arrive with; a battery may not.
  const evCharger = evTypes.has(sensor.asset_type);
  const socAtArrival = inMwh('soc-at-arrival', model['soc-at-arrival']);
  if (socAtArrival !== undefined && !evCharger) {
    throw fail('soc-at-arrival', 'Only an EV charger plans from an assumed arrival SoC; a battery needs a measurement or soc-at-start.');
  }
  if (socAtArrival !== undefined && (socAtArrival < 0 || socAtArrival > socMax))
    throw fail('soc-at-arrival', 'Must lie between 0 and soc-max.');
  return {
    socAtStartMwh: socAtStart,
    socMinMwh: socMin,
    socMaxMwh: socMax,
    socTargets: targets,
    socMinima: minima,
    socMaxima: maxima,
    ...(Object.keys(socConstraintSensors).length && { socConstraintSensors }),
    ...(fromSocSensor && evCharger && { evCharger: true as const }),
    ...(socAtArrival !== undefined && { socAtArrivalMwh: socAtArrival }),
    socRef,
    fromSocSensor,
  };
}
