import { flexContext, type FlexContext } from '../../contracts/flexModel.ts';
import type { SeriesSpec } from '../../contracts/jobSpec.ts';
import type { Asset } from '../../store/assets.ts';
import type { RowReads } from '../../store/rowReads.ts';
import type { SensorInContext } from '../../store/sensors.ts';
import { inheritedFlexContext } from '../storedConfig.ts';
import { asNumber, fail, parseFlex, referencedSensor } from './fields.ts';
import { nonNegative, priceIn, quantityIn, seriesOf, uncoveredAt, type Resolving } from './quantities.ts';

/**
 * The consumption or production price: the 1.0 field (fixed, a sensor or a time series, per MWh),
 * else 0.18's price sensor, else the attribute's market sensor; null when none is given.
 */
export async function priceOf(
  at: Resolving,
  context: FlexContext,
  which: 'consumption' | 'production',
  fallbackSensorId?: number,
): Promise<SeriesSpec | null> {
  const modern = context[`${which}-price`];
  const legacy = context[`${which}-price-sensor`];
  if (modern !== undefined) return (await seriesOf(at, `${which}-price`, modern, priceIn('MWh')))!;
  const sensorId = legacy ?? fallbackSensorId;
  if (sensorId === undefined) return null;
  const s = await referencedSensor(at.rows, `${which}-price-sensor`, sensorId);
  return { sensor: s.id, unit: s.unit.replace(/\/.*/, '/MWh') };
}

type SiteCapacityField =
  'site-power-capacity' | 'site-consumption-capacity' | 'site-production-capacity' | 'site-peak-consumption' | 'site-peak-production';

/**
 * A site limit in MW: the flex-context's field (segments keep the asset's attribute where none
 * applies), else the attribute; undefined when neither is given.
 * @param attrMw the asset's attribute of the same meaning (`capacity_in_mw` and the like).
 */
export async function siteCapacity(
  at: Resolving,
  context: FlexContext,
  field: SiteCapacityField,
  attrMw?: unknown,
): Promise<SeriesSpec | undefined> {
  const v = context[field];
  const n = asNumber(attrMw);
  // A bare number has no unit: refuse it rather than guess between kW and MW.
  if (v !== undefined) return uncoveredAt(await seriesOf(at, field, v, quantityIn('MW', 'dimensionless', 'min', nonNegative)), n);
  return n === undefined ? undefined : { fixed: n };
}

/** The smaller of two optional limits; where a sensor gives one, they are combined when the job runs. */
export const tighter = (a: SeriesSpec | undefined, b: SeriesSpec | undefined): SeriesSpec | null => {
  if (!a || !b) return a ?? b ?? null;
  if ('fixed' in a && 'fixed' in b) return { fixed: Math.min(a.fixed, b.fixed) };
  // Segments under a fixed limit: each segment, and the steps none covers, take the smaller.
  if ('segments' in a && 'fixed' in b) {
    const segments = a.segments.map((s) => ({ ...s, value: Math.min(s.value, b.fixed) }));
    return { ...a, segments, default: Math.min(a.default ?? b.fixed, b.fixed) };
  }
  if ('fixed' in a && 'segments' in b) return tighter(b, a);
  return { min: [a, b] };
};

/**
 * The site-power-capacity stored on a device's asset or its ancestors, which FlexMeasures 1.0 takes
 * as the device's power capacity of last resort (`_get_device_power_capacity`): a trigger's own
 * site-power-capacity bounds the site, not the device. Undefined when none is stored; the
 * trigger's then serves (Flexsite's lenience, where FlexMeasures fails the job).
 * @param asset the trigger's asset.
 */
export async function storedSitePowerCapacity(at: Resolving, sensor: SensorInContext, asset: Asset): Promise<SeriesSpec | undefined> {
  // The trigger's asset was read for this trigger: a device on it is not read again.
  const deviceAsset = sensor.generic_asset_id === asset.id ? asset : await at.rows.asset(sensor.generic_asset_id);
  if (!deviceAsset) return undefined;
  const context = parseFlex(flexContext, await inheritedFlexContext(at.rows, deviceAsset, {}));
  return siteCapacity(at, context, 'site-power-capacity');
}

/**
 * The sensors of `inflexible-consumption` and `inflexible-production` (FlexMeasures 1.0), checked
 * as 1.0 checks them: not mixed with `inflexible-device-sensors`, each sensor listed once, and no
 * sensor whose own `consumption_is_positive` contradicts the list it is in.
 */
export async function signedInflexibleSensors(
  rows: RowReads,
  context: FlexContext,
): Promise<{ consumption: number[]; production: number[] }> {
  const lists = { consumption: context['inflexible-consumption'] ?? [], production: context['inflexible-production'] ?? [] };
  if (context['inflexible-device-sensors'] && (lists.consumption.length || lists.production.length)) {
    throw fail(
      'inflexible-device-sensors',
      'Must pass either inflexible-device-sensors (deprecated) or inflexible-consumption/inflexible-production.',
    );
  }
  const seen = new Set<number>();
  for (const kind of ['consumption', 'production'] as const) {
    const field = `inflexible-${kind}`;
    for (const [i, ref] of lists[kind].entries()) {
      const sensor = await referencedSensor(rows, `${field}.${i}`, ref.sensor);
      if (seen.has(sensor.id))
        throw fail(field, `Sensor ${sensor.id} may only be listed once across inflexible-consumption and inflexible-production.`);
      seen.add(sensor.id);
      const declared = sensor.attributes.consumption_is_positive;
      if (typeof declared === 'boolean' && declared !== (kind === 'consumption')) {
        const text = declared ? 'True' : 'False';
        throw fail(
          field,
          `Sensor ${sensor.id} has \`consumption_is_positive=${text}\`, which conflicts with the sign convention of the \`${field}\` field.`,
        );
      }
    }
  }
  return { consumption: lists.consumption.map((r) => r.sensor), production: lists.production.map((r) => r.sensor) };
}
