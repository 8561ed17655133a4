import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { lastJsonLine, runCli } from '../helpers/processes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

// Each command is a fresh Node process; a test runs several of them in a row (as in cli.test.ts).
vi.setConfig({ testTimeout: 180_000 });

let t: TestServer;
let f: ReturnType<typeof factories>;
let assetId: number;
let token: string;

beforeAll(async () => {
  t = await startTestServer();
  f = factories(t.db);
  const accountId = (await f.account()).id;
  assetId = (await f.asset({ accountId })).id;
  token = (await f.user({ accountId })).token;
});
afterAll(() => t.close());

const cli = (args: string[]) => runCli(args, { FLEXSITE_DATA_DIR: t.dataDir });

function csv(name: string, text: string): string {
  const file = path.join(t.dataDir, name);
  fs.writeFileSync(file, text);
  return file;
}

describe('add beliefs / show beliefs', () => {
  it('loads a CSV file in the sensor time zone, and shows it back', async () => {
    const s = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 60, timezone: 'Europe/Amsterdam' });
    const file = csv('spring.csv', 'event_start,value\n2023-03-26 00:00,1\n2023-03-26 01:00,2\n2023-03-26 03:00,3\n2023-03-26 04:00,\n');
    const added = await cli(['--json', 'add', 'beliefs', '--sensor', String(s.id), file, '--horizon', 'PT0H']);
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const summary = lastJsonLine(added.stdout);
    expect(summary).toEqual({ sensor_id: s.id, source_id: expect.any(Number), inserted: 3, unchanged: 0, replaced: 0 });
    const rows = await t.db('timed_belief').where({ sensor_id: s.id }).orderBy('event_start');
    expect(
      rows.map((r: { event_start: number; belief_time: number }) => [new Date(r.event_start).toISOString(), r.belief_time - r.event_start]),
    ).toEqual([
      ['2023-03-25T23:00:00.000Z', 3_600_000],
      ['2023-03-26T00:00:00.000Z', 3_600_000],
      ['2023-03-26T01:00:00.000Z', 3_600_000],
    ]);
    expect(await t.db('data_source').where({ id: summary.source_id }).first()).toMatchObject({ name: 'Flexsite CLI', type: 'CLI script' });

    const again = await cli(['--json', 'add', 'beliefs', '--sensor', String(s.id), file, '--horizon', 'PT0H']);
    expect(lastJsonLine(again.stdout)).toMatchObject({ inserted: 0, unchanged: 3 });

    const shown = await cli([
      '--json',
      'show',
      'beliefs',
      '--sensor',
      String(s.id),
      '--start',
      '2023-03-26T00:00:00+01:00',
      '--duration',
      'PT4H',
      '--unit',
      'W',
    ]);
    expect(shown.code).toBe(0);
    expect(lastJsonLine(shown.stdout)).toEqual({
      sensor_id: s.id,
      values: [1000, 2000, 3000, null],
      start: '2023-03-26T00:00:00+01:00',
      duration: 'PT4H',
      unit: 'W',
      resolution: 'PT1H',
    });
    const human = await cli(['show', 'beliefs', '--sensor', String(s.id), '--start', '2023-03-26T00:00:00+01:00', '--duration', 'PT4H']);
    expect(human.stdout).toContain('2023-03-26T03:00:00+02:00  3');

    // What the CLI stored is what the API serves.
    const api = await t.request('GET', `/api/v3_0/sensors/${s.id}/data`, {
      token,
      query: { start: '2023-03-26T00:00:00+01:00', duration: 'PT4H', unit: 'kW' },
    });
    expect(api.body.values).toEqual([1, 2, 3, null]);
  });

  it('converts units, upsamples, takes a belief time and a named source', async () => {
    const s = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 });
    const file = csv('hourly.csv', '2021-06-07T00:00:00Z;2\n2021-06-07T01:00:00Z;4\n');
    const added = await cli([
      '--json',
      'add',
      'beliefs',
      '--sensor',
      String(s.id),
      file,
      '--unit',
      'kWh',
      '--belief-time',
      '2021-06-08T00:00:00Z',
      '--source',
      'meter export',
    ]);
    expect(added.code).toBe(0);
    const rows = await t.db('timed_belief').where({ sensor_id: s.id }).orderBy('event_start');
    expect(rows.map((r: { event_value: number }) => r.event_value)).toEqual([2, 2, 2, 2, 4, 4, 4, 4]);
    expect(new Set(rows.map((r: { belief_time: number }) => r.belief_time))).toEqual(new Set([Date.parse('2021-06-08T00:00:00Z')]));
    expect(
      await t
        .db('data_source')
        .where({ id: lastJsonLine(added.stdout).source_id })
        .first(),
    ).toMatchObject({ name: 'meter export', type: 'CLI script' });
  });

  it('refuses bad files and replacements, storing nothing', async () => {
    const s = await f.sensor({ assetId, unit: 'kW', resolutionMinutes: 15 });
    const bad = await cli([
      'add',
      'beliefs',
      '--sensor',
      String(s.id),
      csv('bad.csv', '2021-06-07T00:00:00Z,1\n2021-06-07T00:15:00Z,lots\n'),
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("line 2: 'lots' is not a number.");
    const coarse = await cli([
      'add',
      'beliefs',
      '--sensor',
      String(s.id),
      csv('fine.csv', '2021-06-07T00:00:00Z,1\n2021-06-07T00:05:00Z,1\n'),
    ]);
    expect(coarse.stderr).toContain("Resolution of 0:05:00 is incompatible with the sensor's required resolution of 0:15:00.");
    const first = csv('first.csv', '2021-06-07T00:00:00Z,1\n');
    expect((await cli(['add', 'beliefs', '--sensor', String(s.id), first, '--belief-time', '2021-06-08T00:00:00Z'])).code).toBe(0);
    const second = csv('second.csv', '2021-06-07T00:00:00Z,5\n2021-06-07T00:15:00Z,6\n');
    const replaced = await cli(['add', 'beliefs', '--sensor', String(s.id), second, '--belief-time', '2021-06-08T00:00:00Z']);
    expect(replaced.code).toBe(1);
    expect(replaced.stderr).toMatch(/1 values would replace stored ones/);
    expect((await t.db('timed_belief').where({ sensor_id: s.id })).map((r: { event_value: number }) => r.event_value)).toEqual([1]);
    const unknown = await cli(['add', 'beliefs', '--sensor', '999999', first]);
    expect(unknown.stderr).toContain('sensor 999999 not found');
  });
});
