import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { lastJsonLine, runCli } from '../helpers/processes.ts';
import { freshDatabase, onSharedBackends } from '../helpers/sharedBackends.ts';
import { startTestServer } from '../helpers/testServer.ts';
import { openStore } from '../../server/src/db/connection.ts';
import { dialectOf } from '../../server/src/db/dialect.ts';

// Needs a PostgreSQL server to copy into: runs in the `postgresql` project.
describe.skipIf(!onSharedBackends)('db export-to', () => {
  it("moves a data folder's SQLite store into an empty PostgreSQL database, whole, and only once", { timeout: 120_000 }, async () => {
    // The source: a SQLite store (an empty setting means unset).
    const site = await startTestServer({ FLEXSITE_DATABASE_URL: '' });
    const f = factories(site.db);
    const accountId = (await f.account({ roles: [] })).id;
    const { token } = await f.user({ accountId, roles: ['admin'] });
    const child = await f.asset({ accountId, name: 'child' });
    const parent = await f.asset({ accountId, name: 'parent' });
    // A parent with a higher id than its child: rows must be copied parents first, not by id.
    await site.db('generic_asset').where({ id: child.id }).update({ parent_asset_id: parent.id });
    const sensor = await f.sensor({ assetId: parent.id, unit: 'kW', resolutionMinutes: 15 });
    const start = Date.parse('2026-01-01T00:00:00Z');
    // More than one page of beliefs.
    const values = Array.from({ length: 12_345 }, (_, i) => i / 10);
    await f.beliefs(sensor.id, start, 15 * 60_000, values, start);
    // The SQLite store's count of writes (migration 0027) is SQLite's own: PostgreSQL keeps none.
    const tables = (await dialectOf(site.db).tableNames(site.db)).filter((t) => t !== 'store_change');
    const before: Record<string, number> = {};
    for (const table of tables) before[table] = Number((await site.db(table).count({ n: '*' }))[0].n);
    const batteryType = await f.assetType('battery');
    const dataDir = site.dataDir;
    const target = await freshDatabase({ empty: true });
    try {
      const busy = await runCli(['db', 'export-to', target.url], { FLEXSITE_DATA_DIR: dataDir });
      expect(busy.code).toBe(1);
      expect(busy.stderr).toContain('stop it first');
      await site.server.close();

      const res = await runCli(['db', 'export-to', target.url, '--json'], { FLEXSITE_DATA_DIR: dataDir });
      expect(res.code, res.stderr).toBe(0);
      expect(lastJsonLine(res.stdout)).toEqual({ rows: Object.values(before).reduce((a, b) => a + b, 0), tables: before });

      const db = openStore(target.url);
      try {
        for (const table of tables) expect(Number((await db(table).count({ n: '*' }))[0].n), table).toBe(before[table]);
        const copied = await db('timed_belief').where({ sensor_id: sensor.id }).orderBy('event_start').pluck('event_value');
        expect(copied).toEqual(values);
        expect(await db('generic_asset').where({ id: child.id }).first()).toMatchObject({ name: 'child', parent_asset_id: parent.id });
      } finally {
        await db.destroy();
      }

      // A server on the copy: the same token works, and new rows get new ids.
      const pg = await startTestServer({ FLEXSITE_DATABASE_URL: target.url });
      try {
        const read = await pg.request('GET', `/api/v3_0/assets/${child.id}`, { token });
        expect(read.status).toBe(200);
        expect(read.body).toMatchObject({ name: 'child', parent_asset_id: parent.id });
        const created = await pg.request('POST', '/api/v3_0/assets', {
          token,
          json: { name: 'new', generic_asset_type_id: batteryType, account_id: accountId },
        });
        expect(created.status).toBe(201);
        expect(created.body.id).toBeGreaterThan(parent.id);
      } finally {
        await pg.close();
      }

      // Twice into the same database: refused, nothing changes.
      const again = await runCli(['db', 'export-to', target.url], { FLEXSITE_DATA_DIR: dataDir });
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('already has accounts');
    } finally {
      await target.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
