import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/src/config.ts';
import { serviceEntry } from '../../scripts/ensureService.ts';

const root = path.resolve(import.meta.dirname, '../..');
const unit = fs.readFileSync(path.join(root, 'deploy/flexsite.service'), 'utf8');
const values = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]);

describe('systemd unit (deploy/flexsite.service)', () => {
  it('runs the headless entry as its own user, restarts on failure and leaves time for jobs to finish', () => {
    const [exec] = values('ExecStart');
    expect(exec).toBe('/usr/bin/node build/serve.js');
    // What the README's installation builds (npm run build:service) before the unit starts it.
    expect(serviceEntry).toBe(path.join(root, exec.split(' ').at(-1)!));
    expect(values('User')).toEqual(['flexsite']);
    expect(values('Restart')).toEqual(['on-failure']);
    expect(Number(values('TimeoutStopSec')[0])).toBeGreaterThan(15);
  });

  it('sets a valid HOST, PORT and a data folder that systemd creates for the service user', () => {
    const env = Object.fromEntries(values('Environment').map((e) => e.split('=') as [string, string]));
    const config = loadConfig(env);
    expect({ host: config.host, port: config.port, dataDir: config.dataDir }).toEqual({
      host: '0.0.0.0',
      port: 5000,
      dataDir: '/var/lib/flexsite',
    });
    expect(`/var/lib/${values('StateDirectory')[0]}`).toBe(config.dataDir);
  });
});
