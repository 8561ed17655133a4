import type { Knex } from 'knex';
import { fieldTree, forbidden, mergeFieldTrees, unprocessable, type Location } from '../errors.ts';
import { getAccount } from '../store/accounts.ts';
import type { Asset } from '../store/assets.ts';
import { RowReads } from '../store/rowReads.ts';
import type { SensorInContext } from '../store/sensors.ts';
import { accountMay, can, type ObjectAccess } from './access.ts';
import type { Actor } from './principal.ts';

/**
 * The one rule for the sensors and assets a request (or a job) names: each is resolved once and
 * authorized for what will be done with it. Reading needs `read` (public objects: everyone);
 * writing needs `create-children`, the permission the reference checks for posting data (members
 * of the owning account; public objects: admins only).
 */
export type Use = 'read' | 'write';

/** A sensor or asset named somewhere in a request, and what the request will do with it. */
export interface Reference {
  kind: 'sensor' | 'asset';
  id: number;
  use: Use;
  /** Where it was named, for the 422 of an id that does not exist. */
  location: Location;
  field: string;
}

/**
 * The account whose asset stores or runs the references, which must be able to use them as well
 * as the caller (see `accountMay`); undefined where no asset's account is concerned.
 */
export type UsableBy = number | null | undefined;

/** References that an asset's account must be able to use too (its stored configuration, its jobs). */
export interface AccountReferences {
  refs: Reference[];
  usableBy: number | null;
}

/** What the references resolved to, by id. */
export interface Resolved {
  sensors: Map<number, SensorInContext>;
  assets: Map<number, Asset>;
}

/** Reads a sensor by id; undefined when there is none. */
export type SensorReader = (id: number) => Promise<SensorInContext | undefined>;

const permissionFor = (use: Use): 'create-children' | 'read' => (use === 'write' ? 'create-children' : 'read');

/** The access context of a sensor, whose read carries its owner's consultancy: no read. */
export const sensorAccess = (sensor: SensorInContext): ObjectAccess => ({
  kind: 'sensor',
  accountId: sensor.account_id,
  consultancyAccountId: sensor.consultancy_account_id,
});

/** The access context of an asset owned by `accountId` (null: public). */
export async function assetAccess(db: Knex, accountId: number | null): Promise<ObjectAccess> {
  const account = accountId === null ? undefined : await getAccount(db, accountId);
  return { kind: 'asset', accountId, consultancyAccountId: account?.consultancy_account_id ?? null };
}

/** Flex-model/flex-context keys whose sensor receives the job's results rather than feeding it. */
const outputKeys = new Set([
  'state-of-charge',
  'consumption',
  'production',
  'aggregate-power',
  'aggregate-consumption',
  'aggregate-production',
]);

const isId = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/**
 * Every sensor and asset a flex-model or flex-context names, found generically so that fields
 * added later are covered too: any `{"sensor": id}` value at any depth, integers under keys ending
 * in `-sensor`, integer lists under keys ending in `-sensors` (or named `sensors` inside a field, as a
 * commitment's scope), and the `sensor`/`asset` of a device
 * entry (a top-level object of an asset trigger's list). Outputs (`outputKeys` and the devices
 * themselves) are writes; everything else is read.
 * @param config the flex-model (object or list of device entries) or flex-context.
 * @param prefix the field path of `config` in the request (e.g. `flex-model`), or '' when its
 *   fields are reported directly under the location, as the reference does for flex-configs.
 */
export function flexReferences(config: unknown, prefix = '', location: Location = 'json'): Reference[] {
  const out: Reference[] = [];
  const add = (kind: Reference['kind'], id: number, use: Use, path: (string | number)[]) =>
    out.push({ kind, id, use, location, field: [prefix, ...path].filter((p) => p !== '').join('.') });
  // `top` is the flex-config key the value sits under; undefined at the top level itself.
  const walk = (value: unknown, path: (string | number)[], top: string | undefined): void => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => walk(v, [...path, i], top));
      return;
    }
    if (!value || typeof value !== 'object') return;
    const obj = value as Record<string, unknown>;
    const use: Use = top === undefined || outputKeys.has(top) ? 'write' : 'read';
    if (isId(obj.sensor)) add('sensor', obj.sensor, use, top === undefined ? [...path, 'sensor'] : path);
    if (top === undefined && isId(obj.asset)) add('asset', obj.asset, 'write', [...path, 'asset']);
    for (const [key, v] of Object.entries(obj)) {
      if (key === 'sensor' || (top === undefined && key === 'asset')) continue;
      const under = top ?? key;
      if (key.endsWith('-sensor') && isId(v)) add('sensor', v, 'read', [...path, key]);
      else if ((key.endsWith('-sensors') || (top !== undefined && key === 'sensors')) && Array.isArray(v)) {
        v.forEach((id, i) => isId(id) && add('sensor', id, 'read', [...path, key, i]));
      } else walk(v, [...path, key], under);
    }
  };
  if (Array.isArray(config)) config.forEach((entry, i) => walk(entry, [i], undefined));
  else if (config && typeof config === 'object') {
    // A single flex-model or a flex-context: its keys are the top-level fields.
    for (const [key, v] of Object.entries(config as Record<string, unknown>)) walk({ [key]: v }, [], undefined);
  }
  return out;
}

/** Attributes that are no flex configuration of their own (`market_id` is named as a price sensor). */
const notAttributeConfig = new Set(['flex-model', 'flex-context', 'sensors_to_show', 'sensors_to_show_as_kpis', 'market_id']);

/**
 * The sensors 0.18's attribute-style flex configuration of a sensor or an asset names: `market_id`,
 * the price sensor, and references such as `{"charging-efficiency": {"sensor": id}}`, which the
 * scheduler reads as the flex-model field of that name. Every schedule of the sensor or asset that
 * stores them reads them, so they are authorized when written, as stored flex configuration is
 * (else a job would be refused only when it runs, after reading the foreign sensor's unit).
 * (`flex-model` and `flex-context` attributes are the asset's stored configuration, found by
 * `storedFlexReferences`.)
 */
export function attributeReferences(attributes: Record<string, unknown> | undefined): Reference[] {
  if (!attributes) return [];
  const market = attributes.market_id;
  const marketRef: Reference[] =
    isId(market) && market > 0 ? [{ kind: 'sensor', id: market, use: 'read', location: 'json', field: 'attributes.market_id' }] : [];
  const config = Object.fromEntries(Object.entries(attributes).filter(([key]) => !notAttributeConfig.has(key)));
  return [...marketRef, ...flexReferences(config, 'attributes')];
}

/**
 * Resolves references once each and authorizes every one for its strongest use.
 * @param loaded sensors the request has read already, which are not read again.
 * @param rows the resolution's reads, when the references are a trigger's (what it read is not read again).
 * @returns what they resolved to.
 * @throws 422 naming the fields of ids that do not exist (all of them, as a schema would), else
 *   the reference's 403 when the caller may not do something with one of them.
 */
export async function authorizeReferences(
  db: Knex,
  actor: Actor,
  refs: Reference[],
  loaded: readonly SensorInContext[] = [],
  usableBy?: UsableBy,
  rows = new RowReads(db),
): Promise<Resolved> {
  const resolved = await resolve(rows, refs, loaded);
  const missing = refs.filter((r) => !(r.kind === 'sensor' ? resolved.sensors : resolved.assets).has(r.id));
  if (missing.length) {
    // Fields of the first location named, nested per path part as marshmallow nests list items.
    const location = missing[0].location;
    const fields: Record<string, unknown> = {};
    for (const r of missing.filter((m) => m.location === location)) {
      const noun = r.kind === 'sensor' ? 'sensor' : 'asset';
      mergeFieldTrees(fields, fieldTree(r.field.split('.'), [`No ${noun} found with id ${r.id}.`]));
    }
    throw unprocessable(location, fields);
  }
  if ((await refused(db, actor, refs, resolved, usableBy)) !== undefined) throw forbidden();
  return resolved;
}

/**
 * The 403 for references that exist but may not be used, before anything reads them further
 * (a unit check would otherwise tell a foreign sensor's unit in its 422). When an id is unknown,
 * nothing is refused here: the caller's resolution answers its 422.
 * @param rows the resolution's reads, which then finds the sensors read.
 */
export async function refuseForeign(rows: RowReads, actor: Actor, refs: Reference[], usableBy?: UsableBy): Promise<void> {
  const resolved = await resolve(rows, refs);
  // An unknown id answers its 422 first, as a schema would.
  if (refs.some((r) => !(r.kind === 'sensor' ? resolved.sensors : resolved.assets).has(r.id))) return;
  if ((await refused(rows.db, actor, refs, resolved, usableBy)) !== undefined) throw forbidden();
}

/**
 * For jobs, which answer nobody: the first reference the user may not (or no longer) use as
 * named, or one that no longer exists; undefined when all are allowed.
 * @param readSensor how sensors are read: a job passes its own reader, which keeps them for its inputs.
 */
export async function firstRefused(
  db: Knex,
  actor: Actor,
  refs: Reference[],
  readSensor?: SensorReader,
  usableBy?: UsableBy,
): Promise<Reference | undefined> {
  const resolved = await resolve(new RowReads(db), refs, [], readSensor);
  return (
    refs.find((r) => !(r.kind === 'sensor' ? resolved.sensors : resolved.assets).has(r.id)) ?? refused(db, actor, refs, resolved, usableBy)
  );
}

/** Shorthand for one sensor already loaded (a path sensor): throws the 403 unless allowed. */
export async function authorizeSensor(db: Knex, actor: Actor, sensor: SensorInContext, use: Use): Promise<void> {
  if (!can(actor, permissionFor(use), sensorAccess(sensor))) throw forbidden();
}

/** Resolves the references: the sensors not loaded through `readSensor`, else all in one read. */
async function resolve(
  rows: RowReads,
  refs: Reference[],
  loaded: readonly SensorInContext[] = [],
  readSensor?: SensorReader,
): Promise<Resolved> {
  const sensors = new Map<number, SensorInContext>(loaded.map((s) => [s.id, s]));
  const unread = [...new Set(refs.flatMap((r) => (r.kind === 'sensor' && !sensors.has(r.id) ? [r.id] : [])))];
  if (readSensor) {
    for (const id of unread) {
      const s = await readSensor(id);
      if (s) sensors.set(id, s);
    }
  } else for (const [id, s] of await rows.sensors(unread)) sensors.set(id, s);
  const assets = new Map<number, Asset>();
  for (const r of refs) {
    if (r.kind === 'asset' && !assets.has(r.id)) {
      const a = await rows.asset(r.id);
      if (a) assets.set(r.id, a);
    }
  }
  return { sensors, assets };
}

/**
 * The first resolved reference the user (or the account `usableBy`, when given) may not use;
 * each object is judged once, for its strongest use.
 */
async function refused(db: Knex, actor: Actor, refs: Reference[], resolved: Resolved, usableBy?: UsableBy): Promise<Reference | undefined> {
  const strongest = new Map<string, Reference>();
  for (const r of refs) {
    const key = `${r.kind}:${r.id}`;
    const before = strongest.get(key);
    if (!before || (before.use === 'read' && r.use === 'write')) strongest.set(key, r);
  }
  const contexts = new Map<string, ObjectAccess>();
  for (const r of strongest.values()) {
    let context: ObjectAccess;
    if (r.kind === 'sensor') {
      const sensor = resolved.sensors.get(r.id);
      if (!sensor) continue;
      context = sensorAccess(sensor);
    } else {
      const accountId = resolved.assets.get(r.id)?.account_id;
      if (accountId === undefined) continue;
      const key = `asset:${accountId}`;
      if (!contexts.has(key)) contexts.set(key, await assetAccess(db, accountId));
      context = contexts.get(key)!;
    }
    const permission = permissionFor(r.use);
    if (!can(actor, permission, context)) return r;
    if (usableBy !== undefined && !accountMay(usableBy, permission, context)) return r;
  }
  return undefined;
}

/**
 * Every sensor and asset that flex configuration written to an asset names (the 1.0 fields and the
 * 0.18 attributes) and its KPI sensors, authorized when written against the writer and the asset's account: jobs run
 * on it later for that account, whoever starts them.
 */
export const storedFlexReferences = (
  body: {
    flex_model?: unknown;
    flex_context?: unknown;
    attributes?: Record<string, unknown>;
    sensors_to_show_as_kpis?: { sensor: number }[];
  },
  accountId: number | null,
): AccountReferences => ({
  refs: [
    ...flexReferences(body.flex_model, 'flex_model'),
    ...flexReferences(body.flex_context, 'flex_context'),
    ...flexReferences(body.attributes?.['flex-model'], 'attributes.flex-model'),
    ...flexReferences(body.attributes?.['flex-context'], 'attributes.flex-context'),
    // 0.18's attributes naming sensors (`market_id`, attribute-style references).
    ...attributeReferences(body.attributes),
    // KPI sensors are read for whoever reads the asset's KPIs.
    ...(body.sensors_to_show_as_kpis ?? []).map((k, i): Reference => ({
      kind: 'sensor',
      id: k.sensor,
      use: 'read',
      location: 'json',
      field: `sensors_to_show_as_kpis.${i}.sensor`,
    })),
  ],
  usableBy: accountId,
});
