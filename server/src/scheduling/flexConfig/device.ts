import type { DateTime } from 'luxon';
import type { SeriesSpec, StorageDeviceSpec } from '../../contracts/jobSpec.ts';
import { asNumber, attribute, flexError, outputSensor, referencedSensor } from './fields.ts';
import { capacityAttributeMw, fractionOf, positive, quantityIn, seriesOf, uncoveredAt, type Resolving } from './quantities.ts';
import { socSpec, type DeviceInput } from './stateOfCharge.ts';

/** What a device's spec takes from the site and the dialect. */
export interface DeviceContext extends Resolving {
  start: DateTime;
  /** The site's power capacity, the last fallback of the device's (FlexMeasures 1.0). */
  sitePower: SeriesSpec | undefined;
  /** 1.0 dialect: one non-zero directional capacity alone means none in the other direction. */
  oppositeCapacityZero: boolean;
}

/** Whether a capacity may be other than zero somewhere (a sensor may always be). */
const nonZero = (spec: SeriesSpec): boolean =>
  'fixed' in spec ? spec.fixed !== 0 : 'segments' in spec ? spec.segments.some((s) => s.value !== 0) : true;

/** The larger of two directional capacities, per step; none when neither is given or the one given is zero throughout. */
export function larger(a: SeriesSpec | undefined, b: SeriesSpec | undefined): SeriesSpec | undefined {
  const given = [a, b].filter((s): s is SeriesSpec => s !== undefined);
  if (given.length === 1) return nonZero(given[0]) ? given[0] : undefined;
  if (!given.length) return undefined;
  const [x, y] = given;
  return 'fixed' in x && 'fixed' in y ? { fixed: Math.max(x.fixed, y.fixed) } : { max: given };
}

/**
 * The device's power capacities in MW: each direction's, and the overall one, which 1.0 takes,
 * when not given, from the larger directional capacity, else from the site's.
 */
async function capacities(at: DeviceContext, { sensor, asset, model }: DeviceInput) {
  // A device capacity given as segments keeps the sensor's attribute where no segment applies.
  const mw = async (field: 'consumption-capacity' | 'production-capacity' | 'power-capacity', attr: string) => {
    const attrMw = capacityAttributeMw(attribute(sensor, asset, attr));
    return uncoveredAt(await seriesOf(at, field, model[field] ?? attrMw, quantityIn('MW', 'MW', 'min')), attrMw);
  };
  let consumption = await mw('consumption-capacity', 'consumption_capacity');
  let production = await mw('production-capacity', 'production_capacity');
  if (at.oppositeCapacityZero && consumption && !production && nonZero(consumption)) production = { fixed: 0 };
  else if (at.oppositeCapacityZero && production && !consumption && nonZero(production)) consumption = { fixed: 0 };
  const power = (await mw('power-capacity', 'capacity_in_mw')) ?? larger(consumption, production) ?? at.sitePower;
  return { powerCapacityMw: power ?? null, consumptionCapacityMw: consumption ?? null, productionCapacityMw: production ?? null };
}

/**
 * The one-way efficiency a roundtrip efficiency (given, or a sensor attribute) splits into;
 * undefined without one. Refused beside a one-way efficiency.
 */
function oneWayOfRoundtrip({ sensor, asset, model }: DeviceInput): number | undefined {
  const roundtrip = model['roundtrip-efficiency'] ?? asNumber(attribute(sensor, asset, 'roundtrip_efficiency'));
  if (roundtrip !== undefined && (model['charging-efficiency'] !== undefined || model['discharging-efficiency'] !== undefined)) {
    throw flexError({ _schema: ['Fields `charging_efficiency` and `roundtrip_efficiency` are mutually exclusive.'] });
  }
  return roundtrip === undefined ? undefined : Math.sqrt(fractionOf('roundtrip-efficiency', roundtrip));
}

/**
 * Charging, discharging and storage efficiencies: each one-way efficiency is the roundtrip's
 * share, else given, a sensor attribute, or 1. Storage efficiency above 100% is clipped to 100%
 * (1.0; buildProblem clips series per step); 0.18's value rules refuse it before (checkTriggerValues).
 * @param oneWay the roundtrip efficiency's one-way share, when one is given.
 */
async function efficiencies(at: Resolving, { sensor, asset, model }: DeviceInput, oneWay: number | undefined) {
  const kind = quantityIn('dimensionless', 'dimensionless', 'first', positive);
  const efficiency = async (field: 'charging-efficiency' | 'discharging-efficiency'): Promise<SeriesSpec> => {
    if (oneWay !== undefined) return { fixed: oneWay };
    const given = model[field] ?? (attribute(sensor, asset, field) as string | number | undefined);
    // Above 100% the trigger's value rules refuse (checkTriggerValues).
    return (await seriesOf(at, field, given, kind)) ?? { fixed: 1 };
  };
  const storage = model['storage-efficiency'] ?? asNumber(attribute(sensor, asset, 'storage_efficiency'));
  return {
    chargingEfficiency: await efficiency('charging-efficiency'),
    dischargingEfficiency: await efficiency('discharging-efficiency'),
    storageEfficiencyPerSensorStep:
      typeof storage === 'object'
        ? (await seriesOf(at, 'storage-efficiency', storage, kind))!
        : storage === undefined
          ? 1
          : Math.min(1, kind.read('storage-efficiency', storage)),
  };
}

/** One storage device's part of the job: state of charge, capacities, efficiencies, flows and output sensors. */
export async function deviceSpec(at: DeviceContext, device: DeviceInput): Promise<StorageDeviceSpec> {
  const { sensor, model } = device;
  const { socRef, fromSocSensor, ...soc } = await socSpec(at, device);
  const oneWay = oneWayOfRoundtrip(device);
  const caps = await capacities(at, device);
  const flows = async (field: 'soc-gain' | 'soc-usage') => {
    const specs = await Promise.all((model[field] ?? []).map((g, i) => seriesOf(at, `${field}.${i}`, g, quantityIn('MW', 'MW', 'first'))));
    return specs.filter((g): g is SeriesSpec => g !== undefined);
  };
  const gains = await flows('soc-gain');
  const usages = await flows('soc-usage');
  const socSensor = socRef ? await referencedSensor(at.rows, 'state-of-charge', socRef.sensor) : null;
  const strictlyConsumer = sensor.attributes.is_consumer === true && sensor.attributes.is_producer === false;
  const strictlyProducer = sensor.attributes.is_producer === true && sensor.attributes.is_consumer === false;
  return {
    sensorId: sensor.id,
    name: sensor.name,
    ...soc,
    ...caps,
    ...(await efficiencies(at, device, oneWay)),
    socGainMw: gains,
    socUsageMw: usages,
    canConsume: !strictlyProducer,
    canProduce: !strictlyConsumer && sensor.asset_type !== 'one-way_evse',
    socSensorId: socSensor?.id ?? null,
    ...(fromSocSensor && { socAtStartFromSensor: true }),
    ...(await outputSensor(at.rows, model, 'consumption', 'consumptionSensorId')),
    ...(await outputSensor(at.rows, model, 'production', 'productionSensorId')),
  };
}
