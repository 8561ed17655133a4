import { z } from 'zod';
import type { Knex } from 'knex';
import { awareDateTime, id, int, text } from '../../contracts/fields.ts';
import { formatStart } from '../../domain/time.ts';
import { isEnergyPriceUnit, isPowerUnit } from '../../domain/units.ts';
import * as wire from '../../contracts/responses.ts';
import { fieldError, forbidden, notFound, unprocessable } from '../../errors.ts';
import { unplacedRoute, type Loaded } from '../../http/routes.ts';
import { parseInput } from '../../contracts/validate.ts';
import type { AccessContext, Permission } from '../../policies/access.ts';
import { mayCreateV2Assets } from '../../policies/roles.ts';
import * as assetCommands from '../../commands/assets.ts';
import { createSensor, deleteDevice, updateSensor } from '../../commands/sensors.ts';
import { getAccount } from '../../store/accounts.ts';
import * as assets from '../../store/assets.ts';
import { defined } from '../../store/defined.ts';
import * as sensors from '../../store/sensors.ts';
import { accountAccess } from '../load.ts';
import { readPathId } from './message.ts';
import type { AppContext } from '../../http/context.ts';
import { legacyError } from './responses.ts';
import { attributeReferences, firstRefused, type UsableBy } from '../../policies/references.ts';
import { checkStoredAttributes } from '../../scheduling/storedValues.ts';
import type { User } from '../../store/users.ts';

/**
 * Version 2.0's assets. A 2.0 asset is a device connection: a power sensor (its id is the asset
 * id) together with the asset it sits on. `name`, `unit` and `event_resolution` (minutes) are
 * the sensor's; `display_name`, `asset_type`, the location and `owner_id` (the account) are the
 * asset's; capacity, market, SoC limits and the last UDI state of charge are sensor attributes
 * (falling back to the asset's), which the storage scheduler reads.
 */

const ATTRIBUTES = [
  'capacity_in_mw',
  'market_id',
  'min_soc_in_mwh',
  'max_soc_in_mwh',
  'soc_datetime',
  'soc_in_mwh',
  'soc_udi_event_id',
] as const;

const coordinate = (limit: number) => z.number().min(-limit).max(limit);
const powerUnit = z.string().max(80).refine(isPowerUnit, { error: 'Must be a power unit such as MW or kW.' });

const settable = {
  name: text(),
  display_name: text(),
  asset_type: text(80),
  unit: powerUnit,
  market_id: id.nullable(),
  event_resolution: int().min(1).max(10_080),
  capacity_in_mw: z.number().min(0),
  latitude: coordinate(90),
  longitude: coordinate(180),
  min_soc_in_mwh: z.number().min(0),
  max_soc_in_mwh: z.number().min(0),
};

/** Body of POST /assets (2.0). */
const assetCreate = z.strictObject({
  ...settable,
  owner_id: id,
  display_name: settable.display_name.optional(),
  market_id: settable.market_id.optional(),
  min_soc_in_mwh: settable.min_soc_in_mwh.optional(),
  max_soc_in_mwh: settable.max_soc_in_mwh.optional(),
});

/** Body of PATCH /asset/<id> (2.0): any subset; `id` and `owner_id` are ignored. */
const assetPatch = z.strictObject({
  ...z.object(settable).partial().shape,
  soc_datetime: awareDateTime.nullable().optional(),
  soc_in_mwh: z.number().nullable().optional(),
  soc_udi_event_id: int().nullable().optional(),
  id: z.unknown().optional(),
  owner_id: z.unknown().optional(),
});

const listQuery = z.object({ owner_id: z.string().optional() });

/** A 2.0 asset as its endpoints show it. */
function presentAsset(sensor: sensors.Sensor, asset: assets.Asset, assetType: string) {
  const attribute = (name: (typeof ATTRIBUTES)[number]) => sensor.attributes[name] ?? asset.attributes[name] ?? null;
  return {
    id: sensor.id,
    name: sensor.name,
    display_name: asset.name,
    asset_type: assetType,
    unit: sensor.unit,
    event_resolution: sensor.event_resolution_ms / 60_000,
    latitude: asset.latitude,
    longitude: asset.longitude,
    owner_id: asset.account_id,
    ...Object.fromEntries(ATTRIBUTES.map((name) => [name, attribute(name)])),
  };
}

async function typeNames(db: Knex): Promise<Map<number, string>> {
  return new Map((await assets.listAssetTypes(db)).map((t) => [t.id, t.name]));
}

/** The 2.0 asset of the path, with what the caller needs on it: 400 INVALID_REQUEST for a malformed id, 404 when no power sensor has it. */
/** API 2.0's own rule on its devices (members of the account), not the v3.0 sensor's. */
const v2Access = (sensor: sensors.SensorInContext): AccessContext => ({ kind: 'v2-asset', accountId: sensor.account_id });

async function loadV2Asset(
  ctx: AppContext,
  db: Knex,
  permission: Permission,
): Promise<Loaded<{ sensor: sensors.SensorInContext; asset: assets.Asset }>> {
  const assetId = readPathId(ctx, 'asset');
  const sensor = await sensors.getSensor(db, assetId);
  if (!sensor || !isPowerUnit(sensor.unit)) throw notFound(`Asset ${assetId} not found`);
  const asset = (await assets.getAsset(db, sensor.generic_asset_id))!;
  return { value: { sensor, asset }, permission, on: v2Access(sensor) };
}

async function present(db: Knex, sensorId: number) {
  const sensor = (await sensors.getSensor(db, sensorId))!;
  return presentAsset(sensor, (await assets.getAsset(db, sensor.generic_asset_id))!, sensor.asset_type);
}

/**
 * Checks the references of a body: asset type by name, market sensor, owner account. A market the
 * caller (or the owning account) may not read is answered as one that does not exist, so the
 * answer tells nothing about another account's sensors.
 */
async function checkReferences(
  db: Knex,
  user: User,
  body: { asset_type?: string; market_id?: number | null; owner_id?: number },
  ownerId: UsableBy,
) {
  let typeId: number | undefined;
  if (body.asset_type !== undefined) {
    typeId = [...(await typeNames(db))].find(([, name]) => name === body.asset_type)?.[0];
    if (typeId === undefined) throw fieldError('json', 'asset_type', `Unknown asset type '${body.asset_type}'.`);
  }
  if (body.market_id) {
    const market = await sensors.getSensor(db, body.market_id);
    const refused = await firstRefused(db, user, attributeReferences({ market_id: body.market_id }), undefined, ownerId);
    if (!market || refused || !isEnergyPriceUnit(market.unit))
      throw fieldError('json', 'market_id', `No market (price sensor) with id ${body.market_id}.`);
  }
  if (body.owner_id !== undefined && !(await getAccount(db, body.owner_id))) {
    throw fieldError('json', 'owner_id', `Account with id ${body.owner_id} doesn't exist.`);
  }
  return typeId;
}

/** Sensor attributes after a patch: given values set, nulls removed. */
function patchedAttributes(current: Record<string, unknown>, body: z.output<typeof assetPatch>): Record<string, unknown> {
  const next = { ...current };
  for (const name of ATTRIBUTES) {
    if (!(name in body)) continue;
    const value = body[name];
    if (value === null) delete next[name];
    else if (value !== undefined) next[name] = typeof value === 'object' ? formatStart(value) : value;
  }
  return next;
}

/** The sensor attributes a created 2.0 asset stores. */
const sensorAttributes = (body: z.output<typeof assetCreate>) =>
  defined({
    capacity_in_mw: body.capacity_in_mw,
    market_id: body.market_id ?? undefined,
    min_soc_in_mwh: body.min_soc_in_mwh,
    max_soc_in_mwh: body.max_soc_in_mwh,
  });

const listAssets = unplacedRoute({
  summary: 'List assets',
  request: { query: listQuery },
  load: async ({ db, user, query: { owner_id } }) => {
    if (owner_id !== undefined && !/^\d{1,15}$/.test(owner_id))
      throw legacyError('INVALID_REQUEST', `The owner_id '${owner_id}' is not an integer.`);
    const accountId = owner_id === undefined ? user.account_id : Number(owner_id);
    const account = await getAccount(db, accountId);
    if (!account) throw notFound(`Account ${accountId} not found`);
    return { account: { value: account, permission: 'read', on: accountAccess(account) } };
  },
  command: async ({ db, loaded: { account } }) => {
    const types = await typeNames(db);
    const byId = new Map((await assets.listAssets(db, account.id)).map((a) => [a.id, a]));
    const power = (await sensors.listSensors(db, { accountId: account.id })).filter((s) => isPowerUnit(s.unit));
    return power.map((s) => {
      const asset = byId.get(s.generic_asset_id)!;
      return presentAsset(s, asset, types.get(asset.generic_asset_type_id) ?? '');
    });
  },
  response: { schema: z.array(wire.v2Asset) },
});

const createAsset = unplacedRoute({
  summary: 'Create an asset',
  guard: ({ user }) => {
    if (!mayCreateV2Assets(user)) throw forbidden();
  },
  request: { json: assetCreate },
  check: async ({ db, user, body }) => {
    const typeId = (await checkReferences(db, user, body, body.owner_id))!;
    await checkStoredAttributes(db, sensorAttributes(body), []);
    if (body.asset_type === 'battery') {
      const missing = (['min_soc_in_mwh', 'max_soc_in_mwh'] as const).filter((f) => body[f] === undefined);
      if (missing.length) throw unprocessable('json', Object.fromEntries(missing.map((f) => [f, ['Required for battery assets.']])));
    }
    const displayName = body.display_name ?? body.name;
    if (await assets.assetNameTaken(db, { name: displayName, parentId: null, accountId: body.owner_id })) {
      throw fieldError(
        'json',
        body.display_name ? 'display_name' : 'name',
        `An asset named '${displayName}' already exists in account ${body.owner_id}.`,
      );
    }
    return { typeId, displayName };
  },
  transaction: true,
  command: async ({ context, principal, body, checked: { typeId, displayName } }) => {
    const asset = await assetCommands.createAsset(context, principal, {
      name: displayName,
      latitude: body.latitude,
      longitude: body.longitude,
      generic_asset_type_id: typeId,
      account_id: body.owner_id,
    });
    const attributes = sensorAttributes(body);
    const fields = { name: body.name, unit: body.unit, event_resolution_ms: body.event_resolution * 60_000, timezone: 'UTC', attributes };
    const sensor = await createSensor(context, principal, { asset, fields });
    return present(context.db, sensor.id);
  },
  response: { schema: wire.v2Asset, status: 201 },
});

const getAsset = unplacedRoute({
  summary: 'Get an asset',
  load: async ({ ctx, db }) => ({ device: await loadV2Asset(ctx, db, 'read') }),
  command: ({ db, loaded: { device } }) => present(db, device.sensor.id),
  response: { schema: wire.v2Asset },
});

const patchAsset = unplacedRoute({
  summary: 'Update an asset',
  load: async ({ ctx, db }) => ({ device: await loadV2Asset(ctx, db, 'update') }),
  // Version 2.0 checks the asset and the caller's rights before it reads the body.
  check: async ({ ctx, db, user, loaded: { device } }) => {
    const body = parseInput(assetPatch, ctx.request.body, 'json');
    const typeId = await checkReferences(db, user, { asset_type: body.asset_type, market_id: body.market_id }, device.asset.account_id);
    // The value rules of stored attributes, on the attributes as they will be (min against a stored max).
    await checkStoredAttributes(db, patchedAttributes(device.sensor.attributes, body), []);
    return { body, typeId };
  },
  transaction: true,
  command: async ({ context, principal, loaded: { device }, checked: { body, typeId } }) => {
    const { sensor, asset } = device;
    const sensorChanges = {
      name: body.name,
      unit: body.unit,
      event_resolution_ms: body.event_resolution === undefined ? undefined : body.event_resolution * 60_000,
      attributes: patchedAttributes(sensor.attributes, body),
    };
    await updateSensor(context, principal, { sensor, changes: sensorChanges, access: v2Access(sensor) });
    const changes = { name: body.display_name, latitude: body.latitude, longitude: body.longitude, generic_asset_type_id: typeId };
    await assetCommands.updateAsset(context, principal, { asset, changes });
    return present(context.db, sensor.id);
  },
  response: { schema: wire.v2Asset },
});

const deleteAsset = unplacedRoute({
  summary: 'Delete an asset and its data',
  load: async ({ ctx, db }) => ({ device: await loadV2Asset(ctx, db, 'delete') }),
  transaction: true,
  command: ({ context, principal, loaded: { device } }) => deleteDevice(context, principal, device),
  response: { schema: null, status: 204 },
});

/** The 2.0 asset endpoints, by method and route. */
export const v2AssetEndpoints = {
  'GET assets': () => listAssets,
  'POST assets': () => createAsset,
  'GET asset/:id': () => getAsset,
  'PATCH asset/:id': () => patchAsset,
  'DELETE asset/:id': () => deleteAsset,
};
