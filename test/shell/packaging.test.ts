import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { minimatch } from 'minimatch';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { bundleApp, runtimeFiles, unusedDrivers } from '../../main/bundle.ts';
import { migrations } from '../../server/src/db/migrations/index.ts';
import { battery, site } from '../../worker/src/scheduling/testFixtures.ts';
import { tempDir } from '../helpers/shell.ts';

const root = path.resolve(import.meta.dirname, '../..');
const config = parse(fs.readFileSync(path.join(root, 'electron-builder.yml'), 'utf8')) as {
  files: string[];
  asarUnpack: string[];
  linux: { target: string[] };
  win: { target: string };
  mac: { target: string };
};

/** electron-builder's reading of `files`: patterns in order, a later one overriding an earlier one. */
function packaged(file: string): boolean {
  let match = false;
  for (const pattern of config.files) {
    const negate = pattern.startsWith('!');
    if (match !== negate) continue;
    match = minimatch(file, negate ? pattern.slice(1) : pattern, { dot: true }) !== negate;
  }
  return match;
}

const unpacked = (file: string) => config.asarUnpack.some((pattern) => minimatch(file, pattern, { dot: true }));

let externalImports: string[];
beforeAll(async () => {
  ({ externalImports } = await bundleApp());
});

describe('packaged app (npm run build:app + electron-builder.yml)', () => {
  it('builds every file the app loads at run time, and the configuration packages each of them', () => {
    for (const file of Object.values(runtimeFiles)) {
      expect(packaged(file), `${file} is packaged`).toBe(true);
      // The web UI comes from `npm run build` (vite), which `npm run dist` runs first.
      if (file !== runtimeFiles.ui) expect(fs.existsSync(path.join(root, file)), `${file} exists`).toBe(true);
    }
    expect(packaged('renderer/dist/assets/index-abc123.js')).toBe(true);
    expect(JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).main).toBe(runtimeFiles.main);
  });

  it('keeps out what is bundled: source maps and every package but the ones loaded from node_modules', () => {
    expect(packaged('dist/server.js.map')).toBe(false);
    expect(packaged('node_modules/koa/package.json')).toBe(false);
    expect(packaged('node_modules/sqlite3/src/database.cc')).toBe(false);
    expect(packaged('server/src/app.ts')).toBe(false);
    // What the bundles import at run time besides Node itself; knex's other drivers are never loaded.
    const loaded = externalImports.filter((name) => !unusedDrivers.some((driver) => minimatch(name, driver)));
    expect(loaded).toEqual(['electron', 'piscina', 'sqlite3']);
  });

  it('unpacks from the asar archive everything the server process and its worker threads open as files', () => {
    const { server, worker, solverWasm, ui, sqlite, sqliteBinding, sqliteLoader, sqliteLoaderHelper, piscina, piscinaWorker } =
      runtimeFiles;
    for (const file of [server, worker, solverWasm, ui, sqlite, sqliteBinding, sqliteLoader, sqliteLoaderHelper, piscina, piscinaWorker]) {
      expect(unpacked(file), `${file} is unpacked`).toBe(true);
    }
    expect(unpacked(runtimeFiles.main)).toBe(false);
  });

  it('targets AppImage and deb, NSIS and dmg', () => {
    expect([...config.linux.target, config.win.target, config.mac.target]).toEqual(['AppImage', 'deb', 'nsis', 'dmg']);
  });

  it('runs from the bundle under plain Node with only the packaged node_modules: migrations inside, worker.js (schedules, passwords) and highs.wasm found next to it', async () => {
    const bundle = fs.readFileSync(path.join(root, runtimeFiles.server), 'utf8');
    for (const [name] of migrations) expect(bundle).toContain(name);
    // The app folder as electron-builder lays it out: dist/ and the node_modules packages it
    // ships, nothing else, so that loading any other package (a Redis client) fails here too.
    const app = tempDir();
    fs.cpSync(path.join(root, 'dist'), path.join(app, 'dist'), { recursive: true });
    const shipped = new Set(config.files.flatMap((pattern) => /^node_modules\/([^/*]+)\//.exec(pattern)?.[1] ?? []));
    fs.mkdirSync(path.join(app, 'node_modules'));
    for (const name of shipped) fs.symlinkSync(path.join(root, 'node_modules', name), path.join(app, 'node_modules', name));

    const problem = site([battery({ stepCount: 4, socAtStartMwh: 0.1, socMinMwh: 0.1, socMaxMwh: 1, powerMw: 1 })], [90, 90, 100, 100], 1);
    const script = `
      const { createServerHost } = await import(${JSON.stringify(path.join(app, runtimeFiles.server))});
      const { Piscina } = await import('piscina');
      const host = createServerHost();
      const info = await host.handle({ op: 'start', env: { PORT: '0', HOST: '127.0.0.1', FLEXSITE_DATA_DIR: process.env.DATA_DIR, FLEXSITE_LOG_LEVEL: 'silent' } });
      const ready = (await fetch(info.url + '/api/v3_0/health/ready')).status;
      await host.handle({ op: 'stop' });
      const pool = new Piscina({ filename: new URL('./worker.js', 'file://' + ${JSON.stringify(path.join(app, 'dist/'))}).href });
      const { schedule } = await pool.run(JSON.parse(process.env.PROBLEM), { name: 'storageSchedule' });
      const hash = await pool.run('secret', { name: 'passwordHash' });
      const matches = await pool.run({ password: 'secret', hash }, { name: 'passwordMatches' });
      await pool.destroy();
      console.log(JSON.stringify({ ready, cost: schedule.totalCost, solver: schedule.stats.solver, matches }));
    `;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
      cwd: app,
      env: { ...process.env, DATA_DIR: tempDir(), PROBLEM: JSON.stringify(problem) },
    });
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(result).toEqual({ ready: 200, cost: expect.any(Number), solver: 'highs', matches: true });
  });
});
