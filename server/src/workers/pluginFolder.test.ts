import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findSchedulerPlugins, PluginFolderError } from './pluginFolder.ts';

const IDLE = 'export function schedule() {}';

describe('the scheduler plugin folder', () => {
  it('registers the regular .mjs and .js files of the folder by name, nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'plugins-'));
    writeFileSync(join(dir, 'idle.mjs'), IDLE);
    writeFileSync(join(dir, 'peak_shaver-2.js'), IDLE);
    writeFileSync(join(dir, 'notes.txt'), '');
    writeFileSync(join(dir, '.hidden.mjs'), IDLE);
    mkdirSync(join(dir, 'nested.mjs'));
    symlinkSync('/etc/hostname', join(dir, 'link.mjs'));
    const plugins = findSchedulerPlugins(dir);
    expect([...plugins.entries()].sort()).toEqual([
      ['idle', join(dir, 'idle.mjs')],
      ['peak_shaver-2', join(dir, 'peak_shaver-2.js')],
    ]);
    expect(findSchedulerPlugins(null).size).toBe(0);
  });

  it('refuses an unreadable folder and two modules of one name at start', () => {
    expect(() => findSchedulerPlugins('/nonexistent/plugins')).toThrow(PluginFolderError);
    const dir = mkdtempSync(join(tmpdir(), 'plugins-'));
    writeFileSync(join(dir, 'idle.mjs'), IDLE);
    writeFileSync(join(dir, 'idle.js'), IDLE);
    expect(() => findSchedulerPlugins(dir)).toThrow(/two modules are named idle/);
  });
});
