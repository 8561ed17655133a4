import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { householdLoad } from '../../bench/_forecastSeries.ts';
import { factories } from '../helpers/factories.ts';
import { lastJsonLine, runCli } from '../helpers/processes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

// Each command is a fresh Node process; a test runs several of them in a row (as in cli.test.ts).
vi.setConfig({ testTimeout: 180_000 });

let t: TestServer;
let f: ReturnType<typeof factories>;
let loadSensor: number;
let assetId: number;
let ownerId: number;
let token: string;
let otherUserId: number;

const STEP = 900_000;
const DAYS = 28;
const HISTORY_START = Date.parse('2026-01-05T00:00:00Z');
const ORIGIN = HISTORY_START + DAYS * 86_400_000;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const accountId = (await f.account()).id;
  const owner = await f.user({ accountId, roles: ['account-admin'] });
  ownerId = owner.user.id;
  token = owner.token;
  assetId = (await f.asset({ accountId, type: 'building' })).id;
  loadSensor = (await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15, timezone: 'Europe/Amsterdam' })).id;
  await f.beliefs(loadSensor, HISTORY_START, STEP, householdLoad(HISTORY_START, STEP, DAYS * 96).values, ORIGIN);
  otherUserId = (await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] })).user.id;
});
afterAll(() => t.close());

const cli = (args: string[]) => runCli(['--json', ...args], { FLEXSITE_DATA_DIR: t.dataDir });

describe('add forecasts / show backtest', () => {
  it('forecasts a window in daily cycles, each known at its own start, as beliefs of a forecaster source', async () => {
    const from = new Date(ORIGIN).toISOString();
    const to = new Date(ORIGIN + 2 * 86_400_000).toISOString();
    const added = await cli(['add', 'forecasts', '--sensor', String(loadSensor), '--from', from, '--to', to]);
    expect(added.code).toBe(0);
    const summary = lastJsonLine(added.stdout);
    expect(summary).toMatchObject({ sensor_id: loadSensor, cycles: 2, values: 192, method: expect.any(String) });

    const rows = await t.db('timed_belief').where({ sensor_id: loadSensor, source_id: summary.data_source_id }).orderBy('event_start');
    expect(rows).toHaveLength(192);
    // The first day as known at its start, the second as known at the second day's start.
    expect(new Set(rows.map((r: { belief_time: number }) => Number(r.belief_time)))).toEqual(new Set([ORIGIN, ORIGIN + 86_400_000]));
    expect(await t.db('data_source').where({ id: summary.data_source_id }).first()).toMatchObject({
      type: 'forecaster',
      model: summary.method,
    });
  });

  it("runs as the operator, yet keeps the forecast's account rule: another account's regressor is refused and nothing stored", async () => {
    const foreign = (await f.sensor({ assetId: (await f.asset({ accountId: (await f.account()).id })).id, unit: 'kW' })).id;
    const before = await t.db('timed_belief').where({ sensor_id: loadSensor }).count({ n: '*' }).first();
    const from = new Date(ORIGIN + 7 * 86_400_000).toISOString();
    const to = new Date(ORIGIN + 8 * 86_400_000).toISOString();
    const refused = await cli([
      'add',
      'forecasts',
      '--sensor',
      String(loadSensor),
      '--from',
      from,
      '--to',
      to,
      '--regressors',
      String(foreign),
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `PermissionDenied: the operator or the account of sensor ${loadSensor} may no longer read sensor ${foreign}; nothing was stored.`,
    );
    expect(await t.db('timed_belief').where({ sensor_id: loadSensor }).count({ n: '*' }).first()).toEqual(before);
  });

  it('prints the backtest the method was chosen by, per horizon against seasonal-naive', async () => {
    const shown = await cli(['show', 'backtest', '--sensor', String(loadSensor)]);
    expect(shown.code).toBe(0);
    const b = lastJsonLine(shown.stdout);
    expect(b).toMatchObject({ sensor_id: loadSensor, backtest: { chosen: b.method, perHorizon: expect.any(Array) } });
    expect(b.backtest.perHorizon[0]).toMatchObject({ mae: expect.any(Number), rmse: expect.any(Number), baselineMae: expect.any(Number) });

    const human = await runCli(['show', 'backtest', '--sensor', String(loadSensor)], { FLEXSITE_DATA_DIR: t.dataDir });
    expect(human.stdout).toMatch(/skill .*% against seasonal/);
    expect(human.stdout).toMatch(/horizon\s+mae\s+rmse\s+baseline_mae\s+skill/);
  });

  it('refuses a sensor that was never forecast, an unknown sensor and a backwards window, storing nothing', async () => {
    const fresh = (await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 })).id;
    expect((await cli(['show', 'backtest', '--sensor', String(fresh)])).stderr).toMatch(/has not been forecast yet/);
    expect(
      (await cli(['add', 'forecasts', '--sensor', '999999', '--from', '2026-02-01T00:00Z', '--to', '2026-02-02T00:00Z'])).stderr,
    ).toMatch(/sensor 999999 not found/);
    const backwards = await cli([
      'add',
      'forecasts',
      '--sensor',
      String(fresh),
      '--from',
      '2026-02-02T00:00Z',
      '--to',
      '2026-02-01T00:00Z',
    ]);
    expect(backwards.code).toBe(1);
    expect(await t.db('timed_belief').where({ sensor_id: fresh }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });

  it('fails with a reason where there is no history, and says so where there is too little for a backtest', async () => {
    const empty = (await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 })).id;
    const none = await cli(['add', 'forecasts', '--sensor', String(empty), '--from', '2026-02-02T00:00Z', '--to', '2026-02-03T00:00Z']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/No usable history: sensor \d+ has no measurements/);
    expect(none.stderr).toContain('a forecast needs at least 1 day of history');
    expect(await t.db('timed_belief').where({ sensor_id: empty }).count({ n: '*' }).first()).toEqual({ n: 0 });

    // Three days of history before a one-day cycle: forecast, but without a backtest (that needs 8 + 1 days).
    const short = (await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15, timezone: 'Europe/Amsterdam' })).id;
    const from = ORIGIN - 3 * 86_400_000;
    await f.beliefs(short, from, STEP, householdLoad(from, STEP, 3 * 96).values, ORIGIN);
    const added = await runCli(
      [
        'add',
        'forecasts',
        '--sensor',
        String(short),
        '--from',
        new Date(ORIGIN).toISOString(),
        '--to',
        new Date(ORIGIN + 86_400_000).toISOString(),
      ],
      { FLEXSITE_DATA_DIR: t.dataDir },
    );
    expect(added.code).toBe(0);
    expect(added.stdout).toContain(
      `Too little history: sensor ${short} had 3 days of it; a forecast needs at least 1 day of history, and choosing its method ` +
        'by backtest at least 9 days (8 days before the earliest origin plus the 24-hour horizon).',
    );
    const shown = await runCli(['show', 'backtest', '--sensor', String(short)], { FLEXSITE_DATA_DIR: t.dataDir });
    expect(shown.stdout).toMatch(/seasonal-naive-day, chosen without a backtest: too little history \(choosing by backtest needs 8 days/);
  });
});

describe('automations from the command line', () => {
  let id: number;

  it('adds one with the API rules, shows it in the API and the list, edits and deletes it', async () => {
    const added = await cli([
      'add',
      'automation',
      '--asset',
      String(assetId),
      '--owner',
      String(ownerId),
      '--name',
      'quarter-hourly',
      '--cron',
      '*/15 * * * *',
      '--forecast',
      String(loadSensor),
      '--horizon',
      'PT36H',
    ]);
    expect(added.code).toBe(0);
    const created = lastJsonLine(added.stdout);
    id = created.id;
    expect(created).toMatchObject({
      asset_id: assetId,
      owner_id: ownerId,
      cron: '*/15 * * * *',
      timezone: 'Europe/Amsterdam',
      forecast_sensor_ids: [loadSensor],
      horizon: 'PT36H',
      enabled: true,
      last_run: null,
      next_run: expect.any(String),
    });
    const viaApi = await t.request('GET', `/api/v3_0/assets/${assetId}/automations`, { token });
    expect(viaApi.body).toEqual([expect.objectContaining({ id, name: 'quarter-hourly' })]);

    const listed = lastJsonLine((await cli(['list', 'automations', '--asset', String(assetId)])).stdout);
    expect(listed.automations.map((a: { id: number }) => a.id)).toEqual([id]);

    const edited = await cli(['edit', 'automation', '--id', String(id), '--cron', '0 6 * * *', '--enabled', 'no']);
    expect(lastJsonLine(edited.stdout)).toMatchObject({ id, cron: '0 6 * * *', enabled: false, next_run: null, name: 'quarter-hourly' });
    expect(await t.db('automation').where({ id }).first()).toMatchObject({ cron: '0 6 * * *' });
  });

  it('refuses a bad cron, an owner from another account and another account’s sensors, storing nothing', async () => {
    const before = await t.db('automation').count({ n: '*' }).first();
    const badCron = await cli([
      'add',
      'automation',
      '--asset',
      String(assetId),
      '--owner',
      String(ownerId),
      '--name',
      'x',
      '--cron',
      '61 * * * *',
    ]);
    expect(badCron.code).toBe(1);
    expect(badCron.stderr).toMatch(/cron: .*Not a valid cron expression/);
    const foreignOwner = await cli([
      'add',
      'automation',
      '--asset',
      String(assetId),
      '--owner',
      String(otherUserId),
      '--name',
      'x',
      '--cron',
      '0 * * * *',
    ]);
    expect(foreignOwner.stderr).toMatch(new RegExp(`user ${otherUserId} may not change asset ${assetId}`));
    const otherAsset = await f.asset({ accountId: (await f.account()).id });
    const foreignSensor = (await f.sensor({ assetId: otherAsset.id, unit: 'kW' })).id;
    const refused = await cli([
      'add',
      'automation',
      '--asset',
      String(assetId),
      '--owner',
      String(ownerId),
      '--name',
      'x',
      '--cron',
      '0 * * * *',
      '--schedule',
      String(foreignSensor),
    ]);
    expect(refused.stderr).toMatch(new RegExp(`may not write sensor ${foreignSensor} \\(schedule_sensor_id\\)`));
    const editRefused = await cli(['edit', 'automation', '--id', String(id), '--forecast', String(foreignSensor)]);
    expect(editRefused.code).toBe(1);
    expect(await t.db('automation').count({ n: '*' }).first()).toEqual(before);
    expect(await t.db('automation').where({ id }).first()).toMatchObject({ forecast_sensor_ids: JSON.stringify([loadSensor]) });
  });

  it('deletes one', async () => {
    const deleted = await cli(['delete', 'automation', '--id', String(id), '--yes']);
    expect(lastJsonLine(deleted.stdout)).toEqual({ deleted: 'automation', id });
    expect(await t.db('automation').where({ id }).first()).toBeUndefined();
  });
});
