import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAsset } from '../../server/src/store/assets.ts';
import { updateAsset } from '../../server/src/store/write/assets.ts';
import { FIXTURE } from '../helpers/fixtureWriter.ts';
import { factories } from '../helpers/factories.ts';
import { storageJobArgs } from '../helpers/schedules.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Issue 20, the confused deputy through stored configuration: every sensor an asset's stored
 * flex configuration names must be usable by the writer AND by the asset's account, and a job on
 * the asset must never read or write what that account may not, whoever starts it.
 *
 * The asset under test belongs to account A, which is the consultancy of account D. Sensors are
 * named from A itself (own), another account B (other), the public market (public) and A's
 * client D (client). Expected: own always; public to read only; other and client never — for a
 * plain member, a consultant and a platform admin alike.
 */

let t: TestServer;
let f: ReturnType<typeof factories>;
let assetId: number;
let powerSensorId: number;
let ownPriceId: number;
const tokens: Record<string, string> = {};
/** Sensors per owner, by unit. */
const sensorsOf: Record<Owner, Record<'price' | 'power' | 'soc', number>> = {} as never;

type Owner = 'own' | 'other' | 'public' | 'client';
const owners: Owner[] = ['own', 'other', 'public', 'client'];

/** The reference kinds a stored flex configuration can hold, and what a job does with each. */
const kinds: {
  name: string;
  use: 'read' | 'write';
  unit: 'price' | 'power' | 'soc';
  config: (id: number) => { flex_model?: Record<string, unknown>; flex_context?: Record<string, unknown> };
}[] = [
  { name: 'price input {sensor}', use: 'read', unit: 'price', config: (id) => ({ flex_context: { 'consumption-price': { sensor: id } } }) },
  { name: 'price input …-sensor', use: 'read', unit: 'price', config: (id) => ({ flex_context: { 'production-price-sensor': id } }) },
  { name: 'variable quantity', use: 'read', unit: 'power', config: (id) => ({ flex_model: { 'power-capacity': { sensor: id } } }) },
  {
    name: 'commitment baseline',
    use: 'read',
    unit: 'power',
    config: (id) => ({ flex_context: { commitments: [{ name: 'c', baseline: { sensor: id }, 'up-price': '10 EUR/MW' }] } }),
  },
  { name: 'inflexible device', use: 'read', unit: 'power', config: (id) => ({ flex_context: { 'inflexible-device-sensors': [id] } }) },
  { name: 'state-of-charge output', use: 'write', unit: 'soc', config: (id) => ({ flex_model: { 'state-of-charge': { sensor: id } } }) },
  {
    name: 'aggregate-power output',
    use: 'write',
    unit: 'power',
    config: (id) => ({ flex_context: { 'aggregate-power': { sensor: id } } }),
  },
];

/** The rule under test, stated independently of the code: what account A's asset may name. */
const allowed = (owner: Owner, use: 'read' | 'write') => owner === 'own' || (owner === 'public' && use === 'read');

const START = '2015-01-02T00:00:00+01:00';

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const a = await f.account();
  const b = await f.account();
  const d = await f.account({ consultancyAccountId: a.id });
  const platform = await f.account();
  tokens.member = (await f.user({ accountId: a.id })).token;
  tokens.consultant = (await f.user({ accountId: a.id, roles: ['consultant'] })).token;
  tokens.admin = (await f.user({ accountId: platform.id, roles: ['admin'] })).token;
  const accountOf: Record<Owner, number | null> = { own: a.id, other: b.id, public: null, client: d.id };
  for (const owner of owners) {
    const holder = await f.asset({ accountId: accountOf[owner], type: 'building' });
    sensorsOf[owner] = {
      price: (await f.sensor({ assetId: holder.id, unit: 'EUR/MWh', resolutionMinutes: 60 })).id,
      power: (await f.sensor({ assetId: holder.id, unit: 'MW' })).id,
      soc: (await f.sensor({ assetId: holder.id, unit: 'MWh', resolutionMinutes: 0 })).id,
    };
    await f.beliefs(sensorsOf[owner].price, Date.parse(START), 3600_000, Array(24).fill(50), Date.parse(START) - 86_400_000);
  }
  ownPriceId = sensorsOf.own.price;
  assetId = (await f.asset({ accountId: a.id })).id;
  powerSensorId = (await f.sensor({ assetId })).id;
});
afterAll(() => t.close());

const base = {
  flex_model: { 'soc-at-start': 0, 'soc-max': 1, 'power-capacity': '1 MW' },
  flex_context: { 'consumption-price': { sensor: 0 } },
};

/** A complete stored configuration with one reference of the kind added. */
function configWith(kind: (typeof kinds)[number], id: number) {
  const extra = kind.config(id);
  return {
    flex_model: { ...base.flex_model, ...extra.flex_model },
    flex_context: { 'consumption-price': { sensor: ownPriceId }, ...extra.flex_context },
  };
}

const storedFlex = async () =>
  (await t.db('generic_asset_flex').where({ asset_id: assetId }).first<{ flex_model: string; flex_context: string } | undefined>()) ?? null;

describe('writing stored flex configuration', () => {
  for (const writer of ['member', 'consultant', 'admin']) {
    for (const kind of kinds) {
      for (const owner of owners) {
        const ok = allowed(owner, kind.use);
        it(`${writer} storing a ${kind.name} of ${owner}: ${ok ? '200' : '403, nothing stored'}`, async () => {
          const before = await storedFlex();
          const config = configWith(kind, sensorsOf[owner][kind.unit]);
          const res = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, {
            token: tokens[writer],
            json: { flex_model: JSON.stringify(config.flex_model), flex_context: JSON.stringify(config.flex_context) },
          });
          expect(res.status).toBe(ok ? 200 : 403);
          if (ok) expect(JSON.parse((await storedFlex())!.flex_context)).toEqual(config.flex_context);
          else expect(await storedFlex()).toEqual(before);
        });
      }
    }
  }

  it('also on POST, and for 0.18 flex attributes', async () => {
    const typeId = await f.assetType('battery');
    const accountId = (await t.db('generic_asset').where({ id: assetId }).first('account_id')).account_id as number;
    const foreign = configWith(kinds[5], sensorsOf.public.soc);
    const posted = await t.request('POST', '/api/v3_0/assets', {
      token: tokens.admin,
      json: { name: 'posted', generic_asset_type_id: typeId, account_id: accountId, flex_model: JSON.stringify(foreign.flex_model) },
    });
    expect(posted.status).toBe(403);
    expect(await t.db('generic_asset').where({ name: 'posted' }).first()).toBeUndefined();
    const attrs = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, {
      token: tokens.admin,
      json: { attributes: JSON.stringify({ 'flex-context': { 'consumption-price-sensor': sensorsOf.other.price } }) },
    });
    expect(attrs.status).toBe(403);
  });
});

describe('running on stored flex configuration written before the rule', () => {
  /** Stores the configuration straight into the store, as older versions let anyone. */
  const store = (config: ReturnType<typeof configWith>) =>
    t.db.transaction(async (trx) =>
      updateAsset(trx, FIXTURE, (await getAsset(trx, assetId))!, { flex_model: config.flex_model, flex_context: config.flex_context }),
    );

  for (const runner of ['admin', 'consultant']) {
    for (const kind of kinds) {
      for (const owner of owners) {
        const ok = allowed(owner, kind.use);
        it(`${runner} triggering with an empty body over a ${kind.name} of ${owner}: ${ok ? 'accepted' : '403'}`, async () => {
          await store(configWith(kind, sensorsOf[owner][kind.unit]));
          const jobsBefore = await t.db('job').count({ n: '*' }).first();
          const res = await t.request('POST', `/api/v3_0/sensors/${powerSensorId}/schedules/trigger`, {
            token: tokens[runner],
            json: { start: START, duration: 'PT6H', 'force-new-job-creation': true },
          });
          if (ok) expect(res.status).not.toBe(403);
          else {
            expect(res.status).toBe(403);
            expect(await t.db('job').count({ n: '*' }).first()).toEqual(jobsBefore);
          }
        });
      }
    }
  }

  it('an admin automation on the asset runs nothing that reads or writes outside its account', async () => {
    await store(configWith(kinds[5], sensorsOf.public.soc));
    const made = await t.request('POST', `/api/v3_0/assets/${assetId}/automations`, {
      token: tokens.admin,
      json: { name: 'deputy', cron: '0 6 * * *', schedule_sensor_id: powerSensorId, horizon: 'PT6H' },
    });
    expect(made.status).toBe(201);
    const clock = t.server.automations;
    expect(await clock.tick(Date.parse(made.body.next_run) + 60_000)).toBe(1);
    const job = await t.db('job').where({ queue: 'automation' }).orderBy('created_at', 'desc').first();
    await t.server.services.jobs.settled(job.id, 30_000);
    const done = (await t.server.services.jobs.get(job.id))!;
    expect(done.status).toBe('failed');
    expect(done.errorKind).toBe('forbidden');
    expect(done.error).toMatch(
      /^PermissionDenied: the user who made automation \d+ \(id \d+\) or the account of asset \d+ may not use a sensor/,
    );
    expect(await t.db('timed_belief').where({ sensor_id: sensorsOf.public.soc }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('a queued job naming a public sensor as output fails at run time and writes nothing there', async () => {
    await store(configWith(kinds[0], ownPriceId));
    const res = await t.request('POST', `/api/v3_0/sensors/${powerSensorId}/schedules/trigger`, {
      token: tokens.admin,
      json: { start: START, duration: 'PT6H', 'force-new-job-creation': true },
    });
    const job = (await t.server.services.jobs.get(res.body.schedule ?? res.body.job))!;
    const args = storageJobArgs(job);
    // A job made before the rule, or by hand: its SoC output is the public price sensor.
    args.spec.devices[0].socSensorId = sensorsOf.public.price;
    const prices = await t.db('timed_belief').where({ sensor_id: sensorsOf.public.price }).orderBy('event_start').select('event_value');
    const forged = await t.server.services.jobs.enqueue('scheduling', args, {
      accountId: job.accountId,
      sensorId: powerSensorId,
      reuseWithinS: 0,
      force: true,
    });
    await t.server.services.jobs.settled(forged.id, 30_000);
    const done = (await t.server.services.jobs.get(forged.id))!;
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/account of the scheduled asset \(\d+\) may not write to sensor \d+ \(devices\.0\.socSensorId\)/);
    expect(await t.db('timed_belief').where({ sensor_id: sensorsOf.public.price }).orderBy('event_start').select('event_value')).toEqual(
      prices,
    );
  });
});

describe('attribute-style references (issue 28): refused when written, never read for their unit', () => {
  const attributesNaming = (id: number) => ({ 'charging-efficiency': { sensor: id } });
  const attributesOf = async (table: 'sensor' | 'generic_asset', id: number) =>
    JSON.parse((await t.db(table).where({ id }).first()).attributes) as Record<string, unknown>;

  for (const writer of ['consultant', 'admin']) {
    it(`${writer}: a sensor of another account in asset or sensor attributes is refused (403), nothing stored`, async () => {
      const foreign = JSON.stringify(attributesNaming(sensorsOf.other.power));
      const assetBefore = await attributesOf('generic_asset', assetId);
      const sensorBefore = await attributesOf('sensor', powerSensorId);
      const sensorCount = await t.db('sensor').count({ n: '*' }).first();
      const token = tokens[writer];
      const patchAsset = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, { token, json: { attributes: foreign } });
      const patchSensor = await t.request('PATCH', `/api/v3_0/sensors/${powerSensorId}`, { token, json: { attributes: foreign } });
      const postSensor = await t.request('POST', '/api/v3_0/sensors', {
        token,
        json: { name: 'attr', unit: 'MW', event_resolution: 'PT15M', generic_asset_id: assetId, attributes: foreign },
      });
      const accountId = (await t.db('generic_asset').where({ id: assetId }).first('account_id')).account_id as number;
      const postAsset = await t.request('POST', '/api/v3_0/assets', {
        token,
        json: { name: 'attr-asset', generic_asset_type_id: await f.assetType('battery'), account_id: accountId, attributes: foreign },
      });
      for (const res of [patchAsset, patchSensor, postSensor, postAsset]) {
        expect(res.status).toBe(403);
        expect(JSON.stringify(res.body)).not.toMatch(/MW|dimensionless/);
      }
      expect(await attributesOf('generic_asset', assetId)).toEqual(assetBefore);
      expect(await attributesOf('sensor', powerSensorId)).toEqual(sensorBefore);
      expect(await t.db('sensor').count({ n: '*' }).first()).toEqual(sensorCount);
      expect(await t.db('generic_asset').where({ name: 'attr-asset' }).first()).toBeUndefined();
    });
  }

  it('an own sensor is stored; an unknown id answers 422 as for any reference', async () => {
    const own = await t.request('PATCH', `/api/v3_0/sensors/${powerSensorId}`, {
      token: tokens.admin,
      json: { attributes: JSON.stringify(attributesNaming(sensorsOf.own.power)) },
    });
    expect(own.status).toBe(200);
    expect(await attributesOf('sensor', powerSensorId)).toEqual(attributesNaming(sensorsOf.own.power));
    const unknown = await t.request('PATCH', `/api/v3_0/assets/${assetId}`, {
      token: tokens.admin,
      json: { attributes: JSON.stringify(attributesNaming(999_999)) },
    });
    expect(unknown).toMatchObject({
      status: 422,
      body: { message: { json: { attributes: { 'charging-efficiency': ['No sensor found with id 999999.'] } } } },
    });
  });

  it('a trigger over a foreign reference stored before the rule answers 403, not the foreign unit', async () => {
    await t.db.transaction(async (trx) => updateAsset(trx, FIXTURE, (await getAsset(trx, assetId))!, configWith(kinds[0], ownPriceId)));
    await t
      .db('sensor')
      .where({ id: powerSensorId })
      .update({ attributes: JSON.stringify(attributesNaming(sensorsOf.other.power)) });
    const jobsBefore = await t.db('job').count({ n: '*' }).first();
    const res = await t.request('POST', `/api/v3_0/sensors/${powerSensorId}/schedules/trigger`, {
      token: tokens.admin,
      json: { start: START, duration: 'PT6H', 'force-new-job-creation': true },
    });
    expect(res.status).toBe(403);
    expect(JSON.stringify(res.body)).not.toMatch(/MW|dimensionless/);
    expect(await t.db('job').count({ n: '*' }).first()).toEqual(jobsBefore);
    await t.db('sensor').where({ id: powerSensorId }).update({ attributes: '{}' });
  });
});
