import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { tempDir } from '../helpers/shell.ts';
import { startTestServer } from '../helpers/testServer.ts';

const root = path.resolve(import.meta.dirname, '../..');
const CLIENTS = 40;
const VALUES = 96;
const DAY = 86_400_000;
const FIRST_DAY = Date.parse('2024-01-01T00:00:00Z');

/** The values client `c` posts for its day `k`: distinct, so a partly stored upload shows. */
const valuesOf = (c: number, k: number) => Array.from({ length: VALUES }, (_, i) => c * 1e6 + k * 1e3 + i);

// Durability of group commit: nothing is answered before its transaction has committed.
describe('a server killed while 40 clients post', { timeout: 120_000 }, () => {
  it('keeps every acknowledged upload in full, no unacknowledged one in part, and an intact store', async () => {
    const dataDir = tempDir();
    let t = await startTestServer({}, dataDir);
    const f = factories(t.db);
    const accountId = (await f.account()).id;
    const assetId = (await f.asset({ accountId })).id;
    const { token } = await f.user({ accountId });
    const sensors: number[] = [];
    for (let c = 0; c < CLIENTS; c++) sensors.push((await f.sensor({ assetId, unit: 'kW' })).id);
    await t.close();

    const child = spawn(process.execPath, ['--import', 'tsx', 'server/src/serve.ts'], {
      cwd: root,
      env: { ...process.env, ...t.storeSettings, PORT: '0', HOST: '127.0.0.1', FLEXSITE_LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      let seen = '';
      child.stdout.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const m = /Flexsite listening on (http:\/\/[\d.]+:\d+)/.exec(seen);
        if (m) resolve(m[1]);
        if (seen.length > 100_000) seen = seen.slice(-1000);
      });
      child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));

    const acknowledged = sensors.map(() => new Set<number>());
    const sent = sensors.map(() => 0);
    let killed = false;
    const clients = sensors.map(async (sensorId, c) => {
      for (let k = 0; !killed; k++) {
        sent[c] = k + 1;
        const body = JSON.stringify({
          values: valuesOf(c, k),
          start: new Date(FIRST_DAY + k * DAY).toISOString(),
          duration: 'PT24H',
          unit: 'kW',
        });
        try {
          const res = await fetch(`${url}/api/v3_0/sensors/${sensorId}/data`, {
            method: 'POST',
            headers: { Authorization: token, 'Content-Type': 'application/json' },
            body,
          });
          if (res.status === 200) acknowledged[c].add(k);
          else throw new Error(`answered ${res.status}: ${await res.text()}`);
        } catch (err) {
          if (!killed) throw err;
        }
      }
    });
    // Kill once a good number of uploads has been answered, while the others are in flight.
    while (acknowledged.reduce((n, s) => n + s.size, 0) < 4 * CLIENTS) await new Promise((resolve) => setTimeout(resolve, 20));
    killed = true;
    child.kill('SIGKILL');
    await exited;
    await Promise.all(clients);

    t = await startTestServer({}, dataDir);
    try {
      expect((await t.db.raw('PRAGMA integrity_check')) as unknown).toEqual([{ integrity_check: 'ok' }]);
      for (const [c, sensorId] of sensors.entries()) {
        const rows: { event_start: number; event_value: number }[] = await t
          .db('timed_belief')
          .where({ sensor_id: sensorId })
          .orderBy('event_start')
          .select('event_start', 'event_value');
        const byDay = new Map<number, number[]>();
        for (const r of rows) {
          const k = Math.floor((Number(r.event_start) - FIRST_DAY) / DAY);
          byDay.set(k, [...(byDay.get(k) ?? []), r.event_value]);
        }
        for (const k of acknowledged[c]) expect(byDay.get(k), `client ${c}, day ${k}`).toEqual(valuesOf(c, k));
        // Unacknowledged: the one in flight at the kill, stored in full or not at all.
        for (const [k, values] of byDay) {
          expect(k).toBeLessThan(sent[c]);
          expect(values, `client ${c}, day ${k}`).toEqual(valuesOf(c, k));
        }
      }
    } finally {
      await t.close();
    }
  });
});
