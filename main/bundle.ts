/**
 * `npm run build:app`: bundles the desktop app into `dist/` with esbuild. Everything is bundled
 * except what must stay a real file in node_modules: `sqlite3` (native) and `piscina` (starts
 * its own worker file); `electron` is provided by Electron itself.
 */
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type BuildOptions } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Every file the packaged app loads at run time, relative to the app folder, by role.
 * electron-builder.yml must package each of them (checked by test/shell/packaging.test.ts).
 */
export const runtimeFiles = {
  /** Electron's entry (package.json "main"). */
  main: 'dist/main.js',
  preload: 'dist/preload.cjs',
  /** The server process: the Koa app, the store and its migrations. */
  server: 'dist/server.js',
  /** The piscina task module, found next to the server (server/src/workers/workerPool.ts). */
  worker: 'dist/worker.js',
  /** HiGHS' WebAssembly, found next to the worker. */
  solverWasm: 'dist/highs.wasm',
  /** The web UI (`vite build`), found by the server one folder above itself (server/src/http/staticUi.ts). */
  ui: 'renderer/dist/index.html',
  icon: 'main/resources/icon.png',
  sqlite: 'node_modules/sqlite3/lib/sqlite3.js',
  sqliteBinding: 'node_modules/sqlite3/build/Release/node_sqlite3.node',
  /** What sqlite3 finds its binary with. */
  sqliteLoader: 'node_modules/bindings/bindings.js',
  sqliteLoaderHelper: 'node_modules/file-uri-to-path/index.js',
  piscina: 'node_modules/piscina/dist/index.js',
  piscinaWorker: 'node_modules/piscina/dist/worker.js',
} as const;

/** Left to node_modules: native, self-spawning, or provided by Electron. */
const external = ['electron', 'sqlite3', 'piscina'];
/**
 * knex's other dialects load their drivers lazily; the desktop app only ever uses sqlite3. The
 * Redis clients (ioredis, BullMQ's alternative) are loaded only when FLEXSITE_REDIS_URL is set,
 * which the desktop app never sets (test/shell/packaging.test.ts runs the bundle without them).
 */
export const unusedDrivers = [
  'pg',
  'pg-query-stream',
  'pg-native',
  'mysql',
  'mysql2',
  'mariadb',
  'mariadb/*',
  'oracledb',
  'tedious',
  'better-sqlite3',
  'ioredis',
  '@valkey/valkey-glide',
  // ws (under the MQTT client) tries these optional native speed-ups and runs without them.
  'bufferutil',
  'utf-8-validate',
];

// Bundled CommonJS dependencies call require() and read __dirname; ES module output has neither.
const esmBanner = [
  "import { createRequire as __createRequire } from 'node:module';",
  "import { fileURLToPath as __fileURLToPath } from 'node:url';",
  "import { dirname as __dirnameOf } from 'node:path';",
  'const require = __createRequire(import.meta.url);',
  'const __filename = __fileURLToPath(import.meta.url);',
  'const __dirname = __dirnameOf(__filename);',
].join('\n');

const common: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
  absWorkingDir: root,
};

/**
 * Builds `dist/`: main.js, preload.cjs, server.js, worker.js and highs.wasm.
 * @param outDir the output folder, `dist` in the project root unless given.
 * @returns the packages the bundles import from node_modules (or Electron) at run time.
 */
export async function bundleApp(outDir = path.join(root, 'dist')): Promise<{ externalImports: string[] }> {
  fs.rmSync(outDir, { recursive: true, force: true });
  const esm: BuildOptions = {
    ...common,
    metafile: true,
    format: 'esm',
    banner: { js: esmBanner },
    external: [...external, ...unusedDrivers],
  };
  const results = await Promise.all([
    build({ ...esm, entryPoints: { main: 'main/src/main.ts' }, outdir: outDir }),
    build({ ...esm, entryPoints: { server: 'main/src/serverProcess.ts' }, outdir: outDir }),
    build({ ...esm, entryPoints: { worker: 'worker/src/index.ts' }, outdir: outDir }),
    build({
      ...common,
      metafile: true,
      format: 'cjs',
      external: ['electron'],
      entryPoints: ['main/src/preload.ts'],
      outfile: path.join(outDir, 'preload.cjs'),
    }),
  ]);
  fs.copyFileSync(path.join(root, 'node_modules/highs/build/highs.wasm'), path.join(outDir, 'highs.wasm'));
  const imports = results.flatMap((r) => Object.values(r.metafile?.outputs ?? {}).flatMap((o) => o.imports));
  const packages = imports.filter((i) => i.external && !isBuiltin(i.path)).map((i) => i.path);
  return { externalImports: [...new Set(packages)].sort() };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await bundleApp();
}
