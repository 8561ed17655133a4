import type { Commitment, FlexContext } from '../../contracts/flexModel.ts';
import type { CommitmentSpec, SeriesSpec } from '../../contracts/jobSpec.ts';
import { conversion, isEnergyUnit, isPowerUnit, readQuantity } from '../../domain/units.ts';
import { fail, referencedSensor } from './fields.ts';
import { quantityIn, seriesOf, type QuantityKind, type Resolving } from './quantities.ts';

/**
 * How a commitment price is read: per MW (or kW), or per MWh (or kWh), which is then taken times
 * the step length, as 1.0 converts it; anything else is refused.
 * @param which the price's field name, for the message.
 */
export function commitmentPriceKind(which: 'up-price' | 'down-price', stepMs: number): QuantityKind {
  const refused = (at: string) => fail(at, `Commitment ${which} must have a power or energy unit in its denominator.`);
  return {
    read: (at, given) => {
      const m = /^\s*[-+\d.eE]+\s*([A-Z]{3})\/(.+)$/.exec(String(given));
      if (!m || !(isPowerUnit(m[2]) || isEnergyUnit(m[2]))) throw refused(at);
      const n = readQuantity(String(given), `${m[1]}/MW`, `${m[1]}/MW`, stepMs);
      if (typeof n !== 'number') throw fail(at, n.error);
      return n;
    },
    sensorUnit: (at, s) => {
      const unit = s.unit.replace(/\/.*/, '/MW');
      if (!/^[A-Z]{3}\/MW$/.test(unit) || !conversion(s.unit, unit, stepMs)) throw refused(at);
      return unit;
    },
    overlap: 'first',
  };
}

/** A commitment's price per MW and step: fixed, from a sensor or as a time series. Absent prices are zero. */
async function commitmentPrice(at: Resolving, field: string, value: Commitment['up-price']): Promise<SeriesSpec> {
  if (value === undefined) return { fixed: 0 };
  const which = field.endsWith('up-price') ? 'up-price' : 'down-price';
  return (await seriesOf(at, field, value, commitmentPriceKind(which, at.horizon.stepMs)))!;
}

/** A commitment's baseline in MW: a power, fixed, from a power sensor, or as a time series. */
async function commitmentBaseline(at: Resolving, field: string, value: NonNullable<Commitment['baseline']>): Promise<SeriesSpec> {
  const unit = Array.isArray(value)
    ? 'MW'
    : typeof value === 'object'
      ? (await referencedSensor(at.rows, field, value.sensor)).unit
      : typeof value === 'string'
        ? value.replace(/^\s*[-+\d.eE]+\s*/, '') || 'MW'
        : 'MW';
  if (!isPowerUnit(unit)) throw fail(field, 'Commitment baseline must have a power unit.');
  return (await seriesOf(at, field, value, quantityIn('MW', 'MW', 'first')))!;
}

/**
 * The flex-context's commitments (FlexMeasures 1.0). A commitment binds the site's flow, or the
 * net flow of the devices its `sensors` name, which must be scheduled or inflexible devices of
 * this job. Flexsite's scheduler stays linear, so fixed prices with an up-price below the
 * down-price (a non-convex cost) are refused here rather than solved with binaries.
 * @param deviceSensorIds the sensors a commitment may name: scheduled and inflexible devices.
 * @returns `{ commitments }`, or nothing when the flex-context has none.
 */
export async function commitmentsOf(
  at: Resolving,
  context: FlexContext,
  deviceSensorIds: Set<number>,
): Promise<{ commitments?: CommitmentSpec[] }> {
  const list = context.commitments ?? [];
  const out: CommitmentSpec[] = [];
  for (const [i, c] of list.entries()) {
    const field = (name: string) => `commitments.${i}.${name}`;
    if (c.group) {
      throw fail(
        field('group'),
        'Commitments scoped by an electrical group are not supported yet; list the power sensors under `sensors`.',
      );
    }
    for (const [k, id] of (c.sensors ?? []).entries()) {
      await referencedSensor(at.rows, field(`sensors.${k}`), id);
      if (!deviceSensorIds.has(id)) {
        throw fail(field(`sensors.${k}`), `Sensor ${id} is neither a scheduled device nor an inflexible device of this flex-context.`);
      }
    }
    const upPrice = await commitmentPrice(at, field('up-price'), c['up-price']);
    const downPrice = await commitmentPrice(at, field('down-price'), c['down-price']);
    if ('fixed' in upPrice && 'fixed' in downPrice && upPrice.fixed < downPrice.fixed) {
      throw fail(field('up-price'), 'The up-price must not be below the down-price (a non-convex cost, which Flexsite does not schedule).');
    }
    out.push({
      name: c.name,
      baselineMw: await commitmentBaseline(at, field('baseline'), c.baseline!),
      upPrice,
      downPrice,
      scopeSensorIds: c.sensors ?? null,
    });
  }
  return out.length ? { commitments: out } : {};
}
