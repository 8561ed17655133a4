import type { Config } from '../../config.ts';
import { flexContext, processFlexModel } from '../../contracts/flexModel.ts';
import type { ProcessJobSpec } from '../../contracts/jobSpec.ts';
import { formatStart } from '../../domain/time.ts';
import type { Asset } from '../../store/assets.ts';
import type { RowReads } from '../../store/rowReads.ts';
import type { SensorInContext } from '../../store/sensors.ts';
import { checkTriggerValues } from '../storedValues.ts';
import { startOnGrid } from '../timeGrid.ts';
import { asNumber, attribute, flexError, parseFlex, sourceTypeFilters, stored } from './fields.ts';
import { checkResolution, horizonOf, type TriggerInput } from './horizon.ts';
import { priceOf } from './sitePrices.ts';

/** A trigger for one sensor: its window and flex-context, the sensor and its asset, and the flex-model as sent. */
export interface SensorTrigger {
  input: TriggerInput;
  sensor: SensorInContext;
  asset: Asset;
  flexModel: unknown;
}

/**
 * Resolves a trigger for a process asset (INFLEXIBLE, SHIFTABLE or BREAKABLE load).
 * @returns the job spec.
 */
export async function resolveProcessJob(rows: RowReads, config: Config, trigger: SensorTrigger): Promise<ProcessJobSpec> {
  const { input: requested, sensor, asset, flexModel: rawModel } = trigger;
  const rawContext = { ...stored(asset, 'flex-context'), ...requested.flexContext };
  const context = parseFlex(flexContext, rawContext);
  const marketId = asNumber(attribute(sensor, asset, 'market_id'));
  const rawFlexModel = { ...stored(asset, 'flex-model'), ...(rawModel as object) };
  await checkTriggerValues(rows, {
    models: [rawFlexModel],
    context: rawContext,
    marketSensorId: marketId,
    clipStorageEfficiency: config.apiCompat === '1.0',
  });
  const model = parseFlex(processFlexModel, rawFlexModel);
  if (!sensor.event_resolution_ms) throw flexError('Cannot schedule an instantaneous sensor: it has no event resolution.');
  checkResolution(requested, [sensor]);
  const { input, requestedStartMs } = startOnGrid(requested, requested.resolution?.ms ?? sensor.event_resolution_ms);
  const horizon = horizonOf(config, input, sensor.event_resolution_ms);
  const { stepMs } = horizon;
  // A process longer than the schedule fills the whole schedule, as FlexMeasures clips it.
  const durationSteps = Math.min(Math.ceil(model.duration.ms / stepMs), Math.floor((horizon.endMs - horizon.startMs) / stepMs));
  const processType =
    model['process-type'] ?? (attribute(sensor, asset, 'process-type') as ProcessJobSpec['processType'] | undefined) ?? 'INFLEXIBLE';
  return {
    scheduler: 'ProcessScheduler',
    startMs: horizon.startMs,
    endMs: horizon.endMs,
    stepMs,
    startIso: formatStart(input.start),
    ...(requestedStartMs !== undefined && { requestedStartMs }),
    priorMs: input.prior?.toMillis() ?? null,
    sensorId: sensor.id,
    powerMw: model.power,
    durationSteps,
    processType,
    optimizationSense: model['optimization-sense'] ?? 'MIN',
    restrictions: (model['time-restrictions'] ?? []).map((r) => ({
      startMs: r.start.toMillis(),
      endMs: r.start.plus(r.duration.luxon).toMillis(),
    })),
    consumptionPrice: await priceOf({ rows, horizon }, context, 'consumption', marketId),
    ...sourceTypeFilters(context),
  };
}
