import type { Config } from '../../config.ts';
import type { FlexContext, VariableQuantity } from '../../contracts/flexModel.ts';
import type { SeriesSpec, StorageJobSpec } from '../../contracts/jobSpec.ts';
import { nonNegative, priceIn, seriesOf, type Resolving } from './quantities.ts';
import { siteCapacity } from './sitePrices.ts';

/** FlexMeasures 1.0's breach prices where relaxation is on and no price is given: per MWh (SoC) or per MW. */
export const RELAXED = { soc: 1e6, site: 1e7, device: 1e5 };

type BreachField = `${'soc-minima' | 'soc-maxima' | 'consumption' | 'production' | 'site-consumption' | 'site-production'}-breach-price`;

/** A price per MWh or MW as the spec keeps it: a fixed price stays a number, as in jobs of earlier versions; variable prices are series. */
async function priceSpec(at: Resolving, field: string, value: VariableQuantity | undefined, per: 'MWh' | 'MW') {
  const spec = await seriesOf(at, field, value, priceIn(per, nonNegative));
  return spec && 'fixed' in spec ? spec.fixed : spec;
}

/** Which breach prices the relax flags fill in; on by default only in the 1.0 dialect and for a request that speaks 1.0. */
function relaxedPrices(config: Pick<Config, 'apiCompat'>, context: FlexContext) {
  const relax = context['relax-constraints'] ?? (config.apiCompat === '1.0' && context['consumption-price'] !== undefined);
  const soc = (context['relax-soc-constraints'] ?? relax) ? RELAXED.soc : undefined;
  const site = (context['relax-site-capacity-constraints'] ?? relax) ? RELAXED.site : undefined;
  const device = (context['relax-capacity-constraints'] ?? false) ? RELAXED.device : undefined;
  return { soc, site, device };
}

/** A demand charge: the price per MW of the site's peak above its threshold (none given: 0 MW). */
async function peakCharge(at: Resolving, context: FlexContext, which: 'consumption' | 'production') {
  const field = `site-peak-${which}-price` as const;
  const price = await priceSpec(at, field, context[field], 'MW');
  if (price === undefined) return {};
  const thresholdMw = (await siteCapacity(at, context, `site-peak-${which}`)) ?? { fixed: 0 };
  return { [which === 'consumption' ? 'sitePeakConsumption' : 'sitePeakProduction']: { thresholdMw, price } };
}

/**
 * The soft constraints of a flex-context (FlexMeasures 1.0): breach prices, given or filled in by
 * the relax flags, and demand charges. Relaxation is on by default only in the 1.0 dialect and
 * only for a request that speaks 1.0 (its `consumption-price`), so 0.18 requests keep 0.18's hard
 * constraints; device capacities are relaxed only when asked for by name. Absent when nothing is soft.
 * @param sitePower the site's power capacity, which stays hard behind soft site capacities.
 */
export async function softConstraintsOf(
  at: Resolving,
  config: Pick<Config, 'apiCompat'>,
  context: FlexContext,
  sitePower: SeriesSpec | undefined,
): Promise<Pick<StorageJobSpec, 'breachPrices' | 'sitePowerCapacityMw' | 'sitePeakConsumption' | 'sitePeakProduction'>> {
  const relaxed = relaxedPrices(config, context);
  const price = async (field: BreachField, per: 'MWh' | 'MW', fallback: number | undefined) =>
    (await priceSpec(at, field, context[field], per)) ?? fallback;
  const breach = {
    socMinima: await price('soc-minima-breach-price', 'MWh', relaxed.soc),
    socMaxima: await price('soc-maxima-breach-price', 'MWh', relaxed.soc),
    consumption: await price('consumption-breach-price', 'MW', relaxed.device),
    production: await price('production-breach-price', 'MW', relaxed.device),
    siteConsumption: await price('site-consumption-breach-price', 'MW', relaxed.site),
    siteProduction: await price('site-production-breach-price', 'MW', relaxed.site),
  };
  const given = Object.fromEntries(Object.entries(breach).filter(([, v]) => v !== undefined));
  return {
    ...(Object.keys(given).length ? { breachPrices: given, sitePowerCapacityMw: sitePower ?? null } : {}),
    ...(await peakCharge(at, context, 'consumption')),
    ...(await peakCharge(at, context, 'production')),
  };
}
