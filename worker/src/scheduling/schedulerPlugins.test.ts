import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCustomScheduler } from './customScheduler.ts';
import { unregisteredSchedulerReason } from './schedulerPlugins.ts';
import { battery, constant, site } from './testFixtures.ts';

const IDLE = `export function schedule(problem) {
  const zeros = problem.inflexiblePowerMw.map(() => 0);
  return {
    devices: problem.devices.map((d) => ({ powerMw: zeros, socMwh: [d.socAtStartMwh, ...zeros.map(() => d.socAtStartMwh)] })),
    sitePowerMw: problem.inflexiblePowerMw, costPerStep: zeros, totalCost: 0,
    stats: { solver: 'idle', iterations: 0, binaries: 0, mipGap: null, objective: null, columns: 0, rows: 0, buildMs: 0, solveMs: 0, verifyMs: 0 },
  };
}`;

describe('scheduler plugins', () => {
  it('runs a registered plugin and checks the shape of its answer', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plugins-'));
    writeFileSync(join(dir, 'idle.mjs'), IDLE);
    writeFileSync(
      join(dir, 'bad.mjs'),
      'export function schedule() { return { devices: [], sitePowerMw: [], costPerStep: [], totalCost: 0, stats: {} }; }',
    );
    const plugins = new Map([
      ['idle', join(dir, 'idle.mjs')],
      ['bad', join(dir, 'bad.mjs')],
    ]);
    const problem = site([battery({ stepCount: 3 })], constant(3, 10), null);
    expect((await runCustomScheduler('idle', problem, plugins)).stats.solver).toBe('idle');
    await expect(runCustomScheduler('bad', problem, plugins)).rejects.toThrow(
      /returned a malformed schedule:\n- devices must hold 1 device schedules/,
    );
  });

  it('never loads a path, a URL or a built-in module, even one that names a registered file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'plugins-'));
    const marker = join(dir, 'marker.txt');
    const evil = `import fs from 'node:fs'; fs.writeFileSync(${JSON.stringify(marker)}, 'ran'); export function schedule() {}`;
    writeFileSync(join(dir, 'evil.mjs'), evil);
    const plugins = new Map([['idle', join(dir, 'evil.mjs')]]);
    const problem = site([battery({ stepCount: 3 })], constant(3, 10), null);
    const attempts = [
      `data:text/javascript,${encodeURIComponent(evil)}`,
      join(dir, 'evil.mjs'),
      '../evil',
      './evil.mjs',
      `file://${join(dir, 'evil.mjs')}`,
      'node:child_process',
      'evil',
      'idle.mjs',
    ];
    for (const name of attempts) {
      await expect(runCustomScheduler(name, problem, plugins), name).rejects.toThrow(
        /is not a registered scheduler plugin \(registered: idle\)/,
      );
    }
    expect(existsSync(marker)).toBe(false);
  });

  it('says what is registered when a name is not', () => {
    expect(unregisteredSchedulerReason('idle', new Map())).toBe(
      'custom-scheduler "idle" is not a registered scheduler plugin (none is registered on this appliance)',
    );
    expect(
      unregisteredSchedulerReason(
        42,
        new Map([
          ['b', '/b.mjs'],
          ['a', '/a.mjs'],
        ]),
      ),
    ).toBe('custom-scheduler number is not a registered scheduler plugin (registered: a, b)');
    expect(unregisteredSchedulerReason('a', new Map([['a', '/a.mjs']]))).toBeNull();
  });
});
