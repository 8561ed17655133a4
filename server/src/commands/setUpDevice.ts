import type { DeviceSetup, DeviceSetupAnswer } from '../contracts/devices.ts';
import { fieldTree, mergeFieldTrees, unprocessable } from '../errors.ts';
import { authorize } from '../policies/access.ts';
import { auditActor, rightsOf, type Principal } from '../policies/principal.ts';
import { assetAccess } from '../policies/references.ts';
import { formatDurationHours, formatResolution } from '../domain/time.ts';
import { readQuantity } from '../domain/units.ts';
import { checkRecurringTargets, percentOf, shareOf } from '../scheduling/recurringTargets.ts';
import { storedValueProblem } from '../scheduling/storedValues.ts';
import { assetNameTaken, getAsset, type Asset } from '../store/assets.ts';
import { ensureAssetType } from '../store/write/assets.ts';
import { replaceRecurringSocTargets } from '../store/write/recurringSocTargets.ts';
import type { Sensor } from '../store/sensors.ts';
import { createAsset, updateAsset } from './assets.ts';
import type { Writes } from './context.ts';
import { createSensor } from './sensors.ts';

/**
 * Plain device set-up: one transaction makes the device's asset under a site, the sensors it
 * needs (in the given time zone) and its stored flex-model, keeping the quantities in the units
 * they were entered in ("5 kW", "10 kWh", "95%"), so the flex-model reads as the form did. The
 * asset and its sensors are made by their own commands, with their rules and audit entries.
 */

const QUARTER_HOUR = 15 * 60_000;

const assetTypes = {
  battery: ['battery', 'stationary battery'],
  'one-way_evse': ['one-way_evse', 'uni-directional Electric Vehicle Supply Equipment'],
  'two-way_evse': ['two-way_evse', 'bi-directional Electric Vehicle Supply Equipment'],
  pv: ['solar', 'solar panel(s)'],
  process: ['process', 'process'],
  'house-load': ['house load', "the site's consumption other than its flexible devices"],
  'grid-meter': ['grid meter', "the meter at the site's grid connection"],
} as const;

/** Collects field messages of the body, answered together as one 422. */
class Problems {
  fields: Record<string, unknown> = {};
  add(field: string, message: string) {
    mergeFieldTrees(this.fields, fieldTree([field], [message]));
  }
  throwAny() {
    if (Object.keys(this.fields).length) throw unprocessable('json', this.fields);
  }
}

/** A positive quantity in the unit `rule`'s flex-model field takes (a power, an energy); the message otherwise. */
function checkPositive(problems: Problems, field: string, value: string, rule: 'power-capacity' | 'soc-max'): number | undefined {
  const problem = storedValueProblem(rule, value, 'kWh');
  const n = readQuantity(value, rule === 'soc-max' ? 'MWh' : 'MW', 'kWh');
  if (problem) problems.add(field, problem);
  else if (typeof n === 'number' && n > 0) return n;
  else problems.add(field, 'Must be greater than 0.');
  return undefined;
}

/** The storage fields of a battery or EV as flex-model entries; the reserve as a percentage becomes an energy. */
function storageModel(problems: Problems, body: Extract<DeviceSetup, { kind: 'battery' | 'ev-charger' }>): Record<string, unknown> {
  checkPositive(problems, 'power', body.power, 'power-capacity');
  const capacityMwh = checkPositive(problems, 'capacity', body.capacity, 'soc-max');
  const model: Record<string, unknown> = { 'power-capacity': body.power, 'soc-max': body.capacity };
  if (body.soc_min !== undefined) {
    const percent = percentOf(body.soc_min);
    if (percent !== undefined) {
      if (percent < 0 || percent >= 100) problems.add('soc_min', 'Must be at least 0 % and below 100 %.');
      else model['soc-min'] = shareOf(body.capacity, percent);
    } else {
      const problem = storedValueProblem('soc-min', body.soc_min, 'kWh');
      const mwh = readQuantity(body.soc_min, 'MWh', 'kWh');
      if (problem) problems.add('soc_min', problem);
      else if (capacityMwh !== undefined && typeof mwh === 'number' && mwh >= capacityMwh) {
        problems.add('soc_min', 'Must be below the capacity.');
      } else model['soc-min'] = body.soc_min;
    }
  }
  for (const [field, key] of [
    ['charging_efficiency', 'charging-efficiency'],
    ['discharging_efficiency', 'discharging-efficiency'],
  ] as const) {
    const value = body[field];
    if (value === undefined) continue;
    const problem = storedValueProblem(key, value, 'kWh');
    if (problem) problems.add(field, problem);
    else model[key] = value;
  }
  return model;
}

/** An EV's assumed arrival SoC as the flex-model's soc-at-arrival: a share of the capacity becomes an energy, as the reserve does. */
function arrivalSoc(problems: Problems, body: Extract<DeviceSetup, { kind: 'ev-charger' }>): Record<string, unknown> {
  if (body.arrival_soc === undefined) return {};
  const percent = percentOf(body.arrival_soc);
  if (percent !== undefined) {
    if (percent >= 0 && percent <= 100) return { 'soc-at-arrival': shareOf(body.capacity, percent) };
    problems.add('arrival_soc', 'Must be at least 0 % and at most 100 %.');
    return {};
  }
  const problem = storedValueProblem('soc-at-arrival', body.arrival_soc, 'kWh');
  if (!problem) return { 'soc-at-arrival': body.arrival_soc };
  problems.add('arrival_soc', problem);
  return {};
}

/** A device's asset type, stored flex-model and attributes, from what the body describes. */
function describedDevice(
  problems: Problems,
  body: DeviceSetup,
): { type: keyof typeof assetTypes; model: Record<string, unknown>; attributes: Record<string, unknown> } {
  if (body.kind === 'battery' || body.kind === 'ev-charger') {
    const model = { ...storageModel(problems, body), ...(body.kind === 'ev-charger' && arrivalSoc(problems, body)) };
    const type = body.kind === 'battery' ? 'battery' : body.bidirectional ? 'two-way_evse' : 'one-way_evse';
    // A one-way charger never feeds the site; said in the flex-model too, where people read it.
    if (type === 'one-way_evse') model['production-capacity'] = shareOf(body.power, 0);
    return { type, model, attributes: {} };
  }
  if (body.kind === 'pv') {
    const mw = checkPositive(problems, 'power', body.power, 'power-capacity');
    // Solar panels are not scheduled: their peak is kept as the installed capacity FlexMeasures knows,
    // their orientation beside it, from which they are forecast before they have history.
    const geometry = {
      ...(body.tilt !== undefined && { tilt_in_degrees: body.tilt }),
      ...(body.azimuth !== undefined && { azimuth_in_degrees: body.azimuth }),
    };
    return { type: 'pv', model: {}, attributes: { capacity_in_mw: mw, ...geometry } };
  }
  if (body.kind === 'house-load' || body.kind === 'grid-meter') return { type: body.kind, model: {}, attributes: {} };
  const mw = checkPositive(problems, 'power', body.power, 'power-capacity');
  if (body.duration.nominal || body.duration.ms <= 0) problems.add('duration', 'Must be a positive fixed duration, e.g. PT2H.');
  // The process scheduler's power is a bare number in MW.
  return {
    type: 'process',
    model: { power: mw, duration: formatDurationHours(body.duration.ms), 'process-type': body.process_type },
    attributes: {},
  };
}

/** Kinds the site's flex-context names once made: then the set-up changes the site too. */
const inSiteContext = (kind: DeviceSetup['kind']) => kind === 'pv' || kind === 'house-load' || kind === 'grid-meter';

/**
 * The site's flex-context with the new device's power sensor in it, in the form it already uses:
 * solar panels as inflexible production, the house load as inflexible consumption (the plan is
 * made against it), the grid meter as the sensor of the site's power (FlexMeasures 1.0's
 * aggregate-power, where the plan for the connection is written beside what the meter measures).
 */
function siteContextWith(flex: Record<string, unknown>, kind: DeviceSetup['kind'], sensorId: number): Record<string, unknown> {
  if (kind === 'grid-meter') return { ...flex, 'aggregate-power': { sensor: sensorId } };
  const modern = flex['inflexible-consumption'] !== undefined || flex['inflexible-production'] !== undefined;
  if (!modern) return { ...flex, 'inflexible-device-sensors': [...((flex['inflexible-device-sensors'] as number[]) ?? []), sensorId] };
  const key = kind === 'pv' ? 'inflexible-production' : 'inflexible-consumption';
  return { ...flex, [key]: [...((flex[key] as unknown[]) ?? []), { sensor: sensorId }] };
}

/**
 * Makes a device under a site, where the principal may create children (and, for solar panels,
 * the house load and the grid meter, change the site, whose flex-context then names them).
 * @param principal who sets it up; their time zone is the sensors' unless the body names one.
 * @param input.site the site (its account owns the device).
 * @returns what was made; a 422 with field messages (nothing stored) for bad quantities or a taken name.
 */
export async function setUpDevice(
  context: Writes<'schedulerPlugins'>,
  principal: Principal,
  input: { site: Asset; body: DeviceSetup },
): Promise<DeviceSetupAnswer> {
  const { db: trx } = context;
  const { site, body } = input;
  const onSite = await assetAccess(trx, site.account_id);
  authorize(principal, 'create-children', onSite);
  if (inSiteContext(body.kind)) authorize(principal, 'update', onSite);
  const problems = new Problems();
  const timezone = body.timezone ?? rightsOf(principal)?.timezone ?? 'UTC';
  const resolutionMs = body.resolution ?? QUARTER_HOUR;
  if (resolutionMs <= 0) problems.add('resolution', 'A power sensor needs a resolution above zero.');
  if (await assetNameTaken(trx, { name: body.name, parentId: site.id, accountId: site.account_id })) {
    problems.add('name', `The site already has an asset named '${body.name}'.`);
  }
  const { type, model, attributes } = describedDevice(problems, body);
  const targets = body.kind === 'ev-charger' ? body.soc_targets.map((t) => ({ ...t, timezone: t.timezone ?? timezone })) : [];
  problems.throwAny();
  checkRecurringTargets(targets, { capacity: body.kind === 'ev-charger' ? body.capacity : undefined, socUnit: 'kWh' }, 'soc_targets');

  const [typeName, description] = assetTypes[type];
  const assetType = await ensureAssetType(trx, typeName, description);
  const asset = await createAsset(context, principal, {
    name: body.name,
    account_id: site.account_id,
    parent_asset_id: site.id,
    generic_asset_type_id: assetType.id,
    latitude: site.latitude,
    longitude: site.longitude,
    attributes,
  });
  // Named after the device, so that lists, charts and warnings say "Home battery power", not "power".
  const sensor = (what: string, unit: string, ms: number, sensorAttributes: Record<string, unknown>) =>
    createSensor(context, principal, {
      asset,
      fields: { name: `${body.name} ${what}`, unit, event_resolution_ms: ms, timezone, attributes: sensorAttributes },
    });
  // A load and a meter read consumption (import) as positive, as meters and Home Assistant show them.
  const metered = body.kind === 'house-load' || body.kind === 'grid-meter';
  const sensors: Sensor[] = [await sensor('power', 'kW', resolutionMs, metered ? { consumption_is_positive: true } : {})];
  if (body.kind === 'battery' || body.kind === 'ev-charger') {
    // Readings at instants, in % as batteries and cars report them; the schedule's SoC is written there too.
    const soc = await sensor('state of charge', '%', 0, {});
    sensors.push(soc);
    model['state-of-charge'] = { sensor: soc.id };
  }
  if (Object.keys(model).length) await updateAsset(context, principal, { asset, changes: { flex_model: model } });

  const siteContext = inSiteContext(body.kind) ? siteContextWith(site.flex_context, body.kind, sensors[0].id) : undefined;
  if (siteContext) await updateAsset(context, principal, { asset: site, changes: { flex_context: siteContext } });
  const stored = await replaceRecurringSocTargets(trx, auditActor(principal), asset, targets);

  return {
    asset: { id: asset.id, name: asset.name, generic_asset_type: typeName, parent_asset_id: site.id },
    sensors: sensors.map((s) => ({
      id: s.id,
      name: s.name,
      unit: s.unit,
      timezone: s.timezone,
      event_resolution: formatResolution(s.event_resolution_ms),
    })),
    flex_model: (await getAsset(trx, asset.id))!.flex_model,
    ...(siteContext && { site_flex_context: siteContext }),
    soc_targets: stored.map(({ id, days, time, timezone: zone, value }) => ({ id, days, time, timezone: zone, value })),
  };
}
