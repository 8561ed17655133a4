import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureServiceBuilt, serviceEntry } from '../../scripts/ensureService.ts';
import { stopProcess, waitForLine } from '../helpers/processes.ts';

/**
 * The MQTT client and the embedded broker (some 30 MB) are loaded only when MQTT is switched on.
 * The compiled service runs with a module hook that writes down every import it resolves; a
 * default start must not have resolved `mqtt` or `aedes`, a start with the embedded broker both.
 */
const root = path.resolve(import.meta.dirname, '../..');

/** Module hooks (Node's `register`) that append each resolved specifier of the main thread (where MQTT runs) to a file. */
const hooks = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) { appendFileSync(process.env.IMPORTS_OUT, specifier + '\\n'); return next(specifier, context); }`;
const preload = `import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';
if (isMainThread) register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;

let dir: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-lazy-'));
  await ensureServiceBuilt();
}, 180_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Starts the compiled service with `env` until it listens, stops it, and gives the package names it imported. */
async function importedPackages(name: string, env: Record<string, string>): Promise<Set<string>> {
  const out = path.join(dir, `${name}.imports`);
  fs.writeFileSync(out, '');
  const child = spawn(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(preload)}`, serviceEntry], {
    cwd: root,
    detached: true,
    env: {
      PATH: process.env.PATH,
      PORT: '0',
      HOST: '127.0.0.1',
      FLEXSITE_DATA_DIR: path.join(dir, name),
      FLEXSITE_LOG_LEVEL: 'info',
      IMPORTS_OUT: out,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    await waitForLine(child, /listening on http:\/\/127\.0\.0\.1:\d+/);
  } finally {
    await stopProcess(child);
  }
  // Bare specifiers name packages; relative ones and node: builtins do not.
  return new Set(
    fs
      .readFileSync(out, 'utf8')
      .split('\n')
      .filter((s) => /^[@a-z]/.test(s) && !s.startsWith('node:') && !s.includes(':'))
      .map((s) => s.split('/')[0]),
  );
}

describe('loading MQTT only when it is switched on', () => {
  it('a default start loads neither the MQTT client nor the broker', { timeout: 60_000 }, async () => {
    const loaded = await importedPackages('default', {});
    // The hook saw the server's own packages, so its silence on MQTT means something.
    expect(loaded).toContain('koa');
    expect(loaded).not.toContain('mqtt');
    expect(loaded).not.toContain('aedes');
  });

  it('a start with the embedded broker loads both', { timeout: 60_000 }, async () => {
    const loaded = await importedPackages('embedded', {
      FLEXSITE_MQTT: 'embedded',
      FLEXSITE_MQTT_HOST: '127.0.0.1',
      FLEXSITE_MQTT_PORT: '0',
    });
    expect(loaded).toContain('mqtt');
    expect(loaded).toContain('aedes');
  });
});
