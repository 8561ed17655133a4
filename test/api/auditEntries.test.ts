/**
 * Every write of assets, sensors, users, accounts, automations, recurring targets, tariffs, price
 * connectors, MQTT links, sensor data deletions and device set-up leaves its audit entry, whoever
 * makes it: a user, an automation acting for its maker, or the operator at the command line. The commands run on the real store
 * of a running server; the entry names the acting user (an automation's maker), or nobody for
 * the operator.
 */
import type { Knex } from 'knex';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, patchAccount } from '../../server/src/commands/accounts.ts';
import { createAsset, deleteAsset, updateAsset } from '../../server/src/commands/assets.ts';
import { createAutomation, deleteAutomation, updateAutomation } from '../../server/src/commands/automations.ts';
import type { CommandContext } from '../../server/src/commands/context.ts';
import { deleteSensorData } from '../../server/src/commands/deleteSensorData.ts';
import { createMqttLink, deleteMqttLink } from '../../server/src/commands/mqttLinks.ts';
import { replaceRecurringTargets } from '../../server/src/commands/recurringTargets.ts';
import { createSensor, deleteSensor, updateSensor } from '../../server/src/commands/sensors.ts';
import { setUpDevice } from '../../server/src/commands/setUpDevice.ts';
import { addPriceConnector, deleteTariff, saveTariff } from '../../server/src/commands/tariffs.ts';
import { createUser, updateUser } from '../../server/src/commands/users.ts';
import { automationCreate } from '../../server/src/contracts/automations.ts';
import { deviceSetup } from '../../server/src/contracts/devices.ts';
import { mqttLinkCreate } from '../../server/src/contracts/mqttLinks.ts';
import { tariffDefinition } from '../../server/src/contracts/tariffs.ts';
import type { Principal } from '../../server/src/policies/principal.ts';
import type { Asset } from '../../server/src/store/assets.ts';
import { getSensor } from '../../server/src/store/sensors.ts';
import type { User } from '../../server/src/store/users.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

let t: TestServer;
let f: ReturnType<typeof factories>;
let admin: User;
let accountId: number;
let typeId: number;
let principals: [string, Principal][];

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  accountId = (await f.account()).id;
  admin = (await f.user({ accountId, roles: ['admin'] })).user;
  typeId = await f.assetType('battery');
  principals = [
    ['a user', { kind: 'user', user: admin }],
    // The automation's id only names it in job messages; its rights are its maker's.
    ['an automation', { kind: 'automation', automationId: 1, owner: admin }],
    ['the operator', { kind: 'operator' }],
  ];
});
afterAll(() => t.close());

/** Runs a command in one transaction of the server's store, as the route chain does. */
function run<R>(work: (context: CommandContext<Knex.Transaction>) => Promise<R>): Promise<R> {
  const { reader, config, clock, jobs, passwords, schedulerPlugins } = t.server.services;
  return t.db.transaction((trx) => work({ db: trx, reader, config, clock, jobs, hash: passwords.hash, schedulerPlugins }));
}

let n = 0;
const unique = (what: string) => `${what} ${++n}`;
const newAsset = (principal: Principal, name = unique('asset')) =>
  run((c) => createAsset(c, principal, { name, generic_asset_type_id: typeId, account_id: accountId }));
const newSensor = async (principal: Principal, asset: Asset, fields = { name: 'power', unit: 'kW' }) =>
  (await getSensor(
    t.db,
    (
      await run((c) =>
        createSensor(c, principal, {
          asset,
          fields: { ...fields, event_resolution_ms: 900_000, timezone: 'UTC', attributes: {} },
        }),
      )
    ).id,
  ))!;

/** The entries written since `afterId`: their event and acting user. */
async function entriesSince(afterId: number) {
  return t.db('audit_log').where('id', '>', afterId).orderBy('id').select('event', 'active_user_id', 'active_user_name');
}
const lastId = async () => Number((await t.db('audit_log').max({ id: 'id' }))[0].id ?? 0);

/** Each write, run as the given principal; returns the events it must have recorded. */
const writes: [string, (p: Principal) => Promise<RegExp[]>][] = [
  ['asset create', async (p) => [new RegExp(`^Created asset '${(await newAsset(p)).name}'`)]],
  [
    'asset update',
    async (p) => {
      const asset = await newAsset({ kind: 'operator' });
      const before = await lastId();
      await run((c) => updateAsset(c, p, { asset, changes: { latitude: 10 } }));
      expect(await entriesSince(before)).toHaveLength(1);
      return [/^Updated: latitude, From: null, To: 10$/];
    },
  ],
  [
    'asset delete',
    async (p) => {
      const asset = await newAsset({ kind: 'operator' });
      await run((c) => deleteAsset(c, p, { asset }));
      return [new RegExp(`^Deleted asset '${asset.name}': ${asset.id}$`)];
    },
  ],
  [
    'sensor create',
    async (p) => [new RegExp(`^Created sensor 'power': ${(await newSensor(p, await newAsset({ kind: 'operator' }))).id}$`)],
  ],
  [
    'sensor update',
    async (p) => {
      const sensor = await newSensor({ kind: 'operator' }, await newAsset({ kind: 'operator' }));
      await run((c) => updateSensor(c, p, { sensor, changes: { name: 'load' } }));
      return [new RegExp(`^Updated sensor 'power': ${sensor.id}, Updated: name, From: power, To: load$`)];
    },
  ],
  [
    'sensor delete',
    async (p) => {
      const sensor = await newSensor({ kind: 'operator' }, await newAsset({ kind: 'operator' }));
      await run((c) => deleteSensor(c, p, { sensor }));
      return [new RegExp(`^Deleted sensor 'power': ${sensor.id}$`)];
    },
  ],
  [
    'sensor data deletion',
    async (p) => {
      const sensor = await newSensor({ kind: 'operator' }, await newAsset({ kind: 'operator' }));
      await run((c) => deleteSensorData(c, p, { sensor, deletion: {} }));
      return [new RegExp(`^Deleted data for sensor 'power': ${sensor.id}$`)];
    },
  ],
  [
    'user create and update',
    async (p) => {
      const name = unique('user').replace(' ', '');
      const { user } = await run((c) => createUser(c, p, { email: `${name}@example.com`, username: name, accountId, roleIds: [] }));
      await run((c) => updateUser(c, p, { target: user, changes: { active: false } }));
      return [new RegExp(`^User ${name} created$`), /^Active status set to 'False'\.$/];
    },
  ],
  [
    'account create and update',
    async (p) => {
      const name = unique('account');
      const account = await run((c) => createAccount(c, p, { name }));
      await run((c) => patchAccount(c, p, { account, changes: { name: `${name}!` } }));
      return [new RegExp(`^Account '${name}' created$`), /^Account Updated, Field: name$/];
    },
  ],
  [
    'automation create, update, delete',
    async (p) => {
      const asset = await newAsset({ kind: 'operator' });
      const body = automationCreate.parse({ name: 'nightly', cron: '0 3 * * *', timezone: 'UTC', horizon: 'PT12H' });
      const made = await run((c) => createAutomation(c, p, { asset, makerId: admin.id, body }));
      await run((c) => updateAutomation(c, p, { automation: made, asset, body: { enabled: false } }));
      await run((c) => deleteAutomation(c, p, { automation: made, asset }));
      return [
        new RegExp(`^Created automation 'nightly': ${made.id}$`),
        new RegExp(`^Updated automation 'nightly': ${made.id}, Field: enabled$`),
        new RegExp(`^Deleted automation 'nightly': ${made.id}$`),
      ];
    },
  ],
  [
    'recurring targets',
    async (p) => {
      const asset = await newAsset({ kind: 'operator' });
      await run((c) => replaceRecurringTargets(c, p, { asset, targets: [{ days: ['mon'], time: '07:00', value: '8 kWh' }] }));
      return [new RegExp(`^Set recurring state-of-charge targets of asset ${asset.id}: 1$`)];
    },
  ],
  [
    'device set-up',
    async (p) => {
      const site = await newAsset({ kind: 'operator' });
      const body = deviceSetup.parse({ kind: 'battery', name: 'battery', power: '5 kW', capacity: '10 kWh' });
      const made = await run((c) => setUpDevice(c, p, { site, body }));
      return [
        new RegExp(`^Created asset 'battery': ${made.asset.id}$`),
        /^Created sensor 'battery power'/,
        /^Created sensor 'battery state of charge'/,
        /^Updated: flex_model/,
        new RegExp(`^Set recurring state-of-charge targets of asset ${made.asset.id}: 0$`),
      ];
    },
  ],
  [
    'tariff add, change and delete',
    async (p) => {
      const asset = await newAsset({ kind: 'operator' });
      const prices = await newSensor({ kind: 'operator' }, asset, { name: 'prices', unit: 'EUR/MWh' });
      const definition = tariffDefinition.parse({ name: 'flat', timezone: 'UTC', consumption_price_sensor: prices.id, price: 200 });
      const added = await run((c) => saveTariff(c, p, { asset, definition }));
      await run((c) => saveTariff(c, p, { asset, id: added.id, definition: { ...definition, name: 'flatter', price: 190 } }));
      await run((c) => deleteTariff(c, p, { asset, id: added.id }));
      return [
        new RegExp(`^Added tariff 'flat': ${added.id}$`),
        new RegExp(`^Changed tariff 'flatter': ${added.id}$`),
        // Written from the start of today (UTC) through three days ahead at least, hourly: all withdrawn.
        new RegExp(`^Deleted tariff 'flatter': ${added.id}; withdrew its \\d+ prices from \\d{4}-\\d\\d-\\d\\dT00:00:00.000Z$`),
      ];
    },
  ],
  [
    'day-ahead price connector',
    async (p) => {
      const asset = await newAsset({ kind: 'operator' });
      const prices = await newSensor({ kind: 'operator' }, asset, { name: 'prices', unit: 'EUR/MWh' });
      const made = await run((c) => addPriceConnector(c, p, { asset, sensorId: prices.id, biddingZone: '10YNL----------L' }));
      return [new RegExp(`^Added day-ahead price connector \\(10YNL----------L\\) for sensor ${prices.id}: ${made.id}$`)];
    },
  ],
  [
    'MQTT link create and delete',
    async (p) => {
      const sensor = await newSensor({ kind: 'operator' }, await newAsset({ kind: 'operator' }));
      const body = mqttLinkCreate.parse({ name: 'meter', direction: 'in', topic: `site/${sensor.id}/power`, unit: 'W' });
      const { link } = await run((c) => createMqttLink(c, p, { sensor, body }));
      await run((c) => deleteMqttLink(c, p, { link, sensor }));
      return [
        new RegExp(`^Created MQTT link 'meter' \\(in, site/${sensor.id}/power\\) for sensor ${sensor.id}$`),
        new RegExp(`^Deleted MQTT link 'meter' \\(in, site/${sensor.id}/power\\) of sensor ${sensor.id}$`),
      ];
    },
  ],
];

describe('audit entries', () => {
  for (const [write, make] of writes) {
    it(`${write}: one entry per change, naming the acting user (the operator: nobody)`, async () => {
      for (const [who, principal] of principals) {
        const before = await lastId();
        const expected = await make(principal);
        const entries = (await entriesSince(before)).slice(-expected.length);
        expect(
          entries.map((e) => e.event),
          who,
        ).toEqual(expected.map((e) => expect.stringMatching(e)));
        const actor =
          principal.kind === 'operator'
            ? { active_user_id: null, active_user_name: null }
            : { active_user_id: admin.id, active_user_name: admin.username };
        for (const entry of entries) expect(entry, who).toMatchObject(actor);
      }
    });
  }
});
