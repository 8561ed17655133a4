/**
 * FlexMeasures 0.18 kept a battery's limits as sensor and asset attributes (`capacity_in_mw`,
 * `min_soc_in_mwh`, …), which the scheduler still falls back on. The form shows them as the
 * flex-model and flex-context keys they stand for, in the units it shows (kW, kWh or MWh, %), so
 * that an asset set up that way does not meet a blank form.
 */

const asNumber = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
/** Without float noise: 0.05 MWh is 50 kWh, not 50.00000000000001. */
const tidy = (x: number) => Number(x.toPrecision(12));

/**
 * @param sensor the attributes of the power sensor scheduled (read first, as the scheduler does).
 * @param asset the asset's attributes.
 * @param socUnit the SoC unit the form shows (that of the stored flex-model, else kWh).
 * @returns flex-model and flex-context values with their units, and the attribute names they came from.
 */
export function flexFromAttributes(
  sensor: Record<string, unknown>,
  asset: Record<string, unknown>,
  socUnit: string,
): { model: Record<string, unknown>; context: Record<string, unknown>; used: string[] } {
  const used: string[] = [];
  const model: Record<string, unknown> = {};
  const context: Record<string, unknown> = {};
  const read = (name: string, own: Record<string, unknown>[] = [sensor, asset]) => {
    for (const attributes of own) {
      const v = asNumber(attributes[name]);
      if (v === undefined) continue;
      used.push(name);
      return v;
    }
    return undefined;
  };
  const kw = (mw: number | undefined) => (mw === undefined ? undefined : `${tidy(mw * 1000)} kW`);
  const soc = (mwh: number | undefined) => (mwh === undefined ? undefined : tidy(socUnit === 'MWh' ? mwh : mwh * 1000));
  const percent = (ratio: number | undefined) => (ratio === undefined ? undefined : `${tidy(ratio * 100)}%`);

  const set = (target: Record<string, unknown>, key: string, v: unknown) => {
    if (v !== undefined) target[key] = v;
  };
  set(model, 'power-capacity', kw(read('capacity_in_mw')));
  set(model, 'consumption-capacity', kw(read('consumption_capacity')));
  set(model, 'production-capacity', kw(read('production_capacity')));
  set(model, 'soc-min', soc(read('min_soc_in_mwh')));
  set(model, 'soc-max', soc(read('max_soc_in_mwh')));
  set(model, 'roundtrip-efficiency', percent(read('roundtrip_efficiency')));
  set(model, 'charging-efficiency', percent(read('charging-efficiency')));
  set(model, 'discharging-efficiency', percent(read('discharging-efficiency')));
  set(model, 'storage-efficiency', percent(read('storage_efficiency')));
  if (Object.keys(model).length) model['soc-unit'] = socUnit;
  // The site's limits are the asset's alone.
  set(context, 'site-power-capacity', kw(read('capacity_in_mw', [asset])));
  set(context, 'site-consumption-capacity', kw(read('consumption_capacity_in_mw', [asset])));
  set(context, 'site-production-capacity', kw(read('production_capacity_in_mw', [asset])));
  set(context, 'consumption-price-sensor', read('market_id'));
  return { model, context, used: [...new Set(used)] };
}
