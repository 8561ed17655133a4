import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../worker/src/tasks.ts';
import { createToyAccount, type ToyAccountIds } from '../../server/src/commands/toyAccount.ts';
import { TOY_DAY_PRICES } from '../../server/src/domain/toyPrices.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** The toy account schedules out of the box: its public price sensor holds toy prices for today and the coming days. */

let t: TestServer;
let ids: ToyAccountIds;
let token: string;

beforeAll(async () => {
  t = await startTestServer();
  // Without a toy account the price clock writes nothing.
  expect(await t.server.toyPrices.tick(Date.now())).toBe(0);
  ids = await createToyAccount({ db: t.db, hash: hashPassword }, { kind: 'operator' }, { password: 'toy password' });
  const login = await t.request('POST', '/api/requestAuthToken', { json: { email: 'toy-user@flexmeasures.io', password: 'toy password' } });
  token = login.body.auth_token;
});
afterAll(() => t.close());

const trigger = (tok: string, start: DateTime = DateTime.now().startOf('hour').plus({ hours: 1 }), prior?: DateTime) =>
  t.request('POST', `/api/v3_0/sensors/${ids.battery_power_sensor_id}/schedules/trigger`, {
    token: tok,
    json: {
      start: start.toISO(),
      duration: 'PT24H',
      'flex-model': { 'soc-at-start': '0.1 MWh' },
      ...(prior && { prior: prior.toISO() }),
    },
  });

describe('the toy account', () => {
  it('has toy prices from the start of today (Amsterdam) for three days, known a day ahead; a second run replaces them', async () => {
    const today = DateTime.now().setZone('Europe/Amsterdam').startOf('day');
    const end = today.plus({ days: 3 });
    const rows = async () =>
      t
        .db('timed_belief as b')
        .join('data_source as s', 's.id', 'b.source_id')
        .where('b.sensor_id', ids.day_ahead_prices_sensor_id)
        .orderBy('b.event_start')
        .select<{ event_start: number; event_value: number; name: string }[]>('b.event_start', 'b.event_value', 's.name');
    const stored = await rows();
    expect(stored).toHaveLength(end.diff(today, 'hours').hours);
    expect(stored.every((r) => r.name === 'Flexsite toy prices')).toBe(true);
    expect(Number(stored[0].event_start)).toBe(today.toMillis());
    expect(stored.slice(0, 24).map((r) => r.event_value)).toEqual(
      today.plus({ days: 1 }).diff(today, 'hours').hours === 24 ? [...TOY_DAY_PRICES] : expect.any(Array),
    );
    await createToyAccount({ db: t.db, hash: hashPassword }, { kind: 'operator' }, { password: 'toy password' });
    expect(await rows()).toHaveLength(stored.length);
  });

  it("schedules the toy battery at once, on the market's prices, without warnings", async () => {
    const res = await trigger(token);
    expect(res.status).toBe(200);
    await t.server.services.jobs.settled(res.body.schedule, 60_000);
    const job = await t.request('GET', `/api/v3_0/jobs/${res.body.schedule}`, { token });
    expect(job.body.status).toBe('finished');
    expect(job.body.result.warnings).toEqual([]);
    expect(job.body.result.currency).toBe('EUR');
    expect(Math.max(...job.body.result.devices[0].power_mw.map(Math.abs))).toBeGreaterThan(0);
  });

  it("keeps scheduling on a later day: the running server's clock writes that day's prices and the coming days'", async () => {
    // Ten days after the account was made, as the server's clock sees it then.
    const later = DateTime.now().setZone('Europe/Amsterdam').plus({ days: 10 }).startOf('day').plus({ hours: 9 });
    const start = later.plus({ hours: 1 });
    // An hour later than the trigger below: the same request would answer the same (cached) job.
    const before = await trigger(token, start.plus({ hours: 1 }), later);
    expect(before.status).toBe(200);
    await t.server.services.jobs.settled(before.body.schedule, 60_000);
    const unknown = await t.request('GET', `/api/v3_0/jobs/${before.body.schedule}`, { token });
    expect(unknown.body.status).toBe('failed');
    expect(unknown.body.error).toContain(`Prices unknown for planning window. (sensor ${ids.day_ahead_prices_sensor_id})`);

    expect(await t.server.toyPrices.tick(later.toMillis())).toBe(3);
    const day = later.startOf('day');
    const data = await t.request('GET', `/api/v3_0/sensors/${ids.day_ahead_prices_sensor_id}/data`, {
      token,
      query: { start: day.toISO()!, duration: 'P3D', resolution: 'PT1H', unit: 'EUR/MWh' },
    });
    expect(data.status).toBe(200);
    const hours = day.plus({ days: 3 }).diff(day, 'hours').hours;
    expect(data.body.values).toHaveLength(hours);
    expect(data.body.values.every((v: number | null) => typeof v === 'number')).toBe(true);
    if (hours === 72) expect(data.body.values.slice(24, 48)).toEqual([...TOY_DAY_PRICES]);

    const after = await trigger(token, start, later);
    await t.server.services.jobs.settled(after.body.schedule, 60_000);
    const job = await t.request('GET', `/api/v3_0/jobs/${after.body.schedule}`, { token });
    expect(job.body.status).toBe('finished');
    expect(job.body.result.warnings).toEqual([]);
  });

  it("refuses another account's user", async () => {
    const f = factories(t.db);
    const other = await f.user({ accountId: (await f.account()).id, roles: ['account-admin'] });
    expect((await trigger(other.token)).status).toBe(403);
  });
});
