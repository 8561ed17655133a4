import type { Config } from '../../config.ts';
import { flexContext, storageFlexModel, type FlexContext, type StorageFlexModel } from '../../contracts/flexModel.ts';
import type { SeriesSpec, StorageDeviceSpec, StorageJobSpec } from '../../contracts/jobSpec.ts';
import { formatStart } from '../../domain/time.ts';
import type { Asset } from '../../store/assets.ts';
import type { RowReads } from '../../store/rowReads.ts';
import type { SensorInContext } from '../../store/sensors.ts';
import { checkTriggerValues } from '../storedValues.ts';
import { startOnGrid } from '../timeGrid.ts';
import { commitmentsOf } from './commitments.ts';
import { deviceSpec, type DeviceContext } from './device.ts';
import { asNumber, attribute, fail, flexError, outputSensor, parseFlex, referencedSensor, sourceTypeFilters, stored } from './fields.ts';
import { checkResolution, horizonOf, type Horizon, type TriggerInput } from './horizon.ts';
import type { Resolving } from './quantities.ts';
import { priceOf, signedInflexibleSensors, siteCapacity, storedSitePowerCapacity, tighter } from './sitePrices.ts';
import { softConstraintsOf } from './softConstraints.ts';
import { lastInstant, socUnitOf } from './stateOfCharge.ts';

/** The devices to schedule, each with its flex-model as sent. */
type DeviceRequest = { sensor: SensorInContext; flexModel: unknown }[];

/** A trigger for storage devices: its window and flex-context, the devices, and the asset whose site limits apply. */
export interface StorageTrigger {
  input: TriggerInput;
  /** The power sensors to schedule, each with its own flex-model. */
  devices: DeviceRequest;
  asset: Asset;
}

/**
 * Each device's spec, its flex-model under the asset's stored one. A device's own stored
 * site-power-capacity, else the site's, is its power capacity of last resort.
 * @returns the specs, the flex-models as merged (for the value rules) and as parsed, and the SoC unit of the last device.
 */
async function devicesOf(at: DeviceContext, devices: DeviceRequest, asset: Asset) {
  const rawModels = devices.map((d) => ({
    ...stored(asset, 'flex-model'),
    ...(d.flexModel && typeof d.flexModel === 'object' ? d.flexModel : {}),
  }));
  const models = rawModels.map((m) => parseFlex(storageFlexModel, m));
  const specs: StorageDeviceSpec[] = [];
  let socUnit: 'MWh' | 'kWh' = 'MWh';
  for (const [i, d] of devices.entries()) {
    socUnit = socUnitOf(models[i], d.sensor);
    const storedSitePower = await storedSitePowerCapacity(at, d.sensor, asset);
    specs.push(await deviceSpec({ ...at, sitePower: storedSitePower ?? at.sitePower }, { sensor: d.sensor, asset, model: models[i] }));
  }
  return { specs, rawModels, models, socUnit };
}

/** The site's side of the job: its capacities under its power capacity, and the inflexible devices. */
async function siteOf(at: Resolving, context: FlexContext, asset: Asset, sitePower: SeriesSpec | undefined) {
  const siteConsumption = await siteCapacity(at, context, 'site-consumption-capacity', asset.attributes.consumption_capacity_in_mw);
  const siteProduction = await siteCapacity(at, context, 'site-production-capacity', asset.attributes.production_capacity_in_mw);
  const inflexible = context['inflexible-device-sensors'] ?? [];
  for (const [i, sensorId] of inflexible.entries()) await referencedSensor(at.rows, `inflexible-device-sensors.${i}`, sensorId);
  const signed = await signedInflexibleSensors(at.rows, context);
  return {
    inflexible,
    signed,
    siteConsumptionCapacityMw: tighter(siteConsumption, sitePower),
    siteProductionCapacityMw: tighter(siteProduction, sitePower),
  };
}

/** The schedule's end: the requested one, extended to the latest SoC target (within the maximum horizon). */
export function endWithTargets(horizon: Horizon, specs: Pick<StorageDeviceSpec, 'socTargets'>[]): number {
  const { startMs, stepMs } = horizon;
  const latestTarget = Math.max(...specs.map((s) => lastInstant(s.socTargets)));
  const endMs = Math.max(horizon.endMs, Math.ceil((latestTarget - startMs) / stepMs) * stepMs + startMs);
  if (endMs - startMs < stepMs) throw fail('duration', 'The schedule must cover at least one step of the sensor resolution.');
  return endMs;
}

/** Tie-breakers: charging sooner unless a device declines it; curtailing later by 1.0's default, 0.18's constant otherwise. */
function preferences(config: Pick<Config, 'apiCompat'>, devices: DeviceRequest, models: StorageFlexModel[]) {
  const preferChargingSooner = devices.every((d) => (d.flexModel as Record<string, unknown> | null)?.['prefer-charging-sooner'] !== false);
  const preferCurtailingLater = models.every((m) => m['prefer-curtailing-later'] ?? config.apiCompat === '1.0');
  return { preferChargingSooner, ...(preferCurtailingLater && { preferCurtailingLater: true as const }) };
}

/**
 * Resolves a trigger for one or more storage devices into a job spec, answering every
 * flex-model/flex-context error with a 422 before any job exists.
 * @returns the job spec.
 */
export async function resolveStorageJob(rows: RowReads, config: Config, trigger: StorageTrigger): Promise<StorageJobSpec> {
  const { input: requested, devices, asset } = trigger;
  const rawContext = { ...stored(asset, 'flex-context'), ...requested.flexContext };
  const context = parseFlex(flexContext, rawContext);
  const sensorStepMs = Math.min(...devices.map((d) => d.sensor.event_resolution_ms || Infinity));
  if (!Number.isFinite(sensorStepMs)) throw flexError('Cannot schedule an instantaneous sensor: it has no event resolution.');
  checkResolution(
    requested,
    devices.map((d) => d.sensor),
  );
  const { input, requestedStartMs } = startOnGrid(requested, requested.resolution?.ms ?? sensorStepMs);
  const at: Resolving = { rows, horizon: horizonOf(config, input, sensorStepMs) };
  const sitePower = await siteCapacity(at, context, 'site-power-capacity', asset.attributes.capacity_in_mw);
  const dialect10 = config.apiCompat === '1.0';
  const { specs, rawModels, models, socUnit } = await devicesOf(
    { ...at, start: input.start, sitePower, oppositeCapacityZero: dialect10 },
    devices,
    asset,
  );
  const marketSensorId = asNumber(attribute(devices[0].sensor, asset, 'market_id'));
  const endMs = endWithTargets(at.horizon, specs);
  const { inflexible, signed, ...siteCapacities } = await siteOf(at, context, asset, sitePower);
  const customScheduler = attribute(devices[0].sensor, asset, 'custom-scheduler');
  const spec: StorageJobSpec = {
    scheduler: 'StorageScheduler',
    startMs: at.horizon.startMs,
    endMs,
    stepMs: at.horizon.stepMs,
    startIso: formatStart(input.start),
    ...(requestedStartMs !== undefined && { requestedStartMs }),
    priorMs: input.prior?.toMillis() ?? null,
    devices: specs,
    consumptionPrice: await priceOf(at, context, 'consumption', marketSensorId),
    productionPrice: await priceOf(at, context, 'production'),
    inflexibleSensorIds: inflexible,
    inflexibleConsumptionSensorIds: signed.consumption,
    inflexibleProductionSensorIds: signed.production,
    ...(await softConstraintsOf(at, config, context, sitePower)),
    ...(await commitmentsOf(
      at,
      context,
      new Set([...specs.map((s) => s.sensorId), ...inflexible, ...signed.consumption, ...signed.production]),
    )),
    ...siteCapacities,
    ...preferences(config, devices, models),
    socUnit,
    customScheduler: typeof customScheduler === 'string' && customScheduler ? customScheduler : null,
    ...(await outputSensor(rows, context, 'aggregate-power', 'aggregatePowerSensorId')),
    ...(await outputSensor(rows, context, 'aggregate-consumption', 'aggregateConsumptionSensorId')),
    ...(await outputSensor(rows, context, 'aggregate-production', 'aggregateProductionSensorId')),
    ...sourceTypeFilters(context, models),
  };
  // After the resolution, whose messages name shapes and units more precisely: what it lets
  // through (a breach price of 1e120, an unknown currency, a negative capacity) the rules refuse.
  await checkTriggerValues(rows, { models: rawModels, context: rawContext, marketSensorId, clipStorageEfficiency: dialect10 });
  return spec;
}
