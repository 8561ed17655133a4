import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedClock } from '../../server/src/clock.ts';
import { openStore, storeTarget } from '../../server/src/db/connection.ts';
import { factories } from '../helpers/factories.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/*
 * The stale-sensor check runs every minute. On SQLite it keeps the sensors and last measurements
 * it read while the store's count of writes stands; these tests pin that what it keeps is what a
 * read would find: after a write by another process, after a reading dated later than the check
 * that read, and as time alone passes. The server runs on a simulated clock that is never
 * advanced, so that no check but the test's own runs in between.
 */

const QUARTER = 900_000;
const onSqlite = () => t.storeSettings.FLEXSITE_DATABASE_URL === undefined;

let t: TestServer;
let f: ReturnType<typeof factories>;

beforeAll(async () => {
  t = await startTestServer({}, undefined, { clock: new SimulatedClock(Date.parse('2028-01-01T00:00:00Z')) });
  f = factories(t.db);
});
afterAll(async () => {
  await t.close();
  fs.rmSync(t.dataDir, { recursive: true, force: true });
});

/** An account with an admin and a building: where each test's meters are. */
async function site() {
  const account = await f.account();
  const { token } = await f.user({ accountId: account.id, roles: ['account-admin'] });
  const asset = await f.asset({ accountId: account.id, type: 'building', name: 'Shed' });
  const meter = (name: string) => f.sensor({ assetId: asset.id, unit: 'kW', resolutionMinutes: 15, name, timezone: 'UTC' });
  const staleSubjects = async () => {
    const res = await t.request('GET', '/api/v3_0/notifications', { token });
    expect(res.status).toBe(200);
    return (res.body as { kind: string; subject: string }[])
      .filter((n) => n.kind === 'sensor-stale')
      .map((n) => n.subject)
      .sort();
  };
  return { token, meter, staleSubjects };
}

const check = (iso: string) => t.server.attention.checkStale(Date.parse(iso));

/** The statements of the check's own reads that `run` makes: the sensor list, the last measurements. */
async function checkReads(run: () => Promise<void>): Promise<{ sensors: number; lasts: number }> {
  const seen: string[] = [];
  // Quotes and placeholders as SQLite writes them, whichever store.
  const listen = (q: { sql: string }) => seen.push(q.sql.replace(/[`"]/g, '').replace(/\$\d+/g, '?'));
  t.db.on('query', listen);
  try {
    await run();
  } finally {
    t.db.removeListener('query', listen);
  }
  return {
    sensors: seen.filter((sql) => sql.includes('a.account_id as acc from sensor')).length,
    lasts: seen.filter((sql) => sql.includes('CAST(? AS INTEGER) AS sensor')).length,
  };
}

describe('the stale check', () => {
  it('finds sensors going stale as time alone passes, reading nothing while nothing is written (on SQLite)', async () => {
    const { token, meter, staleSubjects } = await site();
    const early = await meter('early meter');
    const late = await meter('late meter');
    // The early meter's last event ends at 01:00, stale after 01:30.
    await f.beliefs(early.id, Date.parse('2028-01-10T00:00:00Z'), QUARTER, [1, 2, 3, 4], Date.parse('2028-01-10T01:00:00Z'));
    expect(await check('2028-01-10T01:00:00Z')).toBe(0);
    // The late meter's reading, posted at 01:05, ends at 01:15: stale after 01:45.
    const posted = await t.request('POST', `/api/v3_0/sensors/${late.id}/data`, {
      token,
      json: { values: [5], start: '2028-01-10T01:00:00Z', duration: 'PT15M', unit: 'kW', prior: '2028-01-10T01:05:00Z' },
    });
    expect(posted.status).toBe(200);
    // A write: this check reads again, the late meter's measurement (the early one is known fresh).
    expect(await check('2028-01-10T01:10:00Z')).toBe(0);
    const reads = await checkReads(async () => {
      expect(await check('2028-01-10T01:30:00Z')).toBe(0);
      expect(await check('2028-01-10T01:31:00Z')).toBe(1);
      expect(await staleSubjects()).toEqual([`sensor-stale:${early.id}:${Date.parse('2028-01-10T00:45:00Z')}`]);
      expect(await check('2028-01-10T01:45:00Z')).toBe(0);
      expect(await check('2028-01-10T01:46:00Z')).toBe(1);
    });
    expect(await staleSubjects()).toEqual(
      [
        `sensor-stale:${early.id}:${Date.parse('2028-01-10T00:45:00Z')}`,
        `sensor-stale:${late.id}:${Date.parse('2028-01-10T01:00:00Z')}`,
      ].sort(),
    );
    // On SQLite no sensor list after the write was read, and one last measurement: the early
    // meter's, once no longer known fresh; PostgreSQL keeps no count and reads at every check.
    expect(reads).toEqual(onSqlite() ? { sensors: 0, lasts: 1 } : { sensors: 4, lasts: 3 });
  });

  it('sees a measurement another process wrote between two checks, believed before the first', async () => {
    const { meter, staleSubjects } = await site();
    const gate = await meter('gate meter');
    // Last event 00:15–00:30: stale after 01:00.
    await f.beliefs(gate.id, Date.parse('2028-03-10T00:00:00Z'), QUARTER, [1, 2], Date.parse('2028-03-10T00:30:00Z'));
    expect(await check('2028-03-10T01:01:00Z')).toBe(1);
    // The CLI imports the meter's log through a connection of its own: 00:45–01:00, read at 01:00.
    const cli = openStore(storeTarget({ dataDir: t.dataDir, databaseUrl: t.storeSettings.FLEXSITE_DATABASE_URL }));
    try {
      await factories(cli).beliefs(gate.id, Date.parse('2028-03-10T00:45:00Z'), QUARTER, [3], Date.parse('2028-03-10T01:00:00Z'));
    } finally {
      await cli.destroy();
    }
    // Fresh again until 01:30; then stale since 01:00, news again.
    expect(await check('2028-03-10T01:02:00Z')).toBe(0);
    expect(await check('2028-03-10T01:30:00Z')).toBe(0);
    expect(await check('2028-03-10T01:31:00Z')).toBe(1);
    expect(await staleSubjects()).toEqual(
      [
        `sensor-stale:${gate.id}:${Date.parse('2028-03-10T00:15:00Z')}`,
        `sensor-stale:${gate.id}:${Date.parse('2028-03-10T00:45:00Z')}`,
      ].sort(),
    );
  });

  it('sees a reading stored before a check and dated after it once its time has come, with nothing written between', async () => {
    const { meter, staleSubjects } = await site();
    const pump = await meter('pump meter');
    // Last event 00:15–00:30: stale after 01:00.
    await f.beliefs(pump.id, Date.parse('2028-05-10T00:00:00Z'), QUARTER, [1, 2], Date.parse('2028-05-10T00:30:00Z'));
    // A reading of 01:30–01:45 dated 01:30 (a device whose clock runs ahead, a check running late).
    await f.beliefs(pump.id, Date.parse('2028-05-10T01:30:00Z'), QUARTER, [3], Date.parse('2028-05-10T01:30:00Z'));
    expect(await check('2028-05-10T01:01:00Z')).toBe(1);
    // No write since: at 01:31 the 01:30 event has started, and the meter is fresh until 02:15.
    expect(await check('2028-05-10T01:31:00Z')).toBe(0);
    expect(await check('2028-05-10T02:15:00Z')).toBe(0);
    expect(await check('2028-05-10T02:16:00Z')).toBe(1);
    expect(await staleSubjects()).toEqual(
      [
        `sensor-stale:${pump.id}:${Date.parse('2028-05-10T00:15:00Z')}`,
        `sensor-stale:${pump.id}:${Date.parse('2028-05-10T01:30:00Z')}`,
      ].sort(),
    );
  });
});
