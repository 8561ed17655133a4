import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ensureUiBuilt, newestMtimeMs } from './ensureUi.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
/**
 * The compiled headless service: `serve.js` (server/src/serve.ts) and next to it `worker.js`, the
 * piscina task module the server's pools find beside themselves (server/src/workers/workerPool.ts).
 * One folder below the project root, so the server finds the web UI in `../renderer/dist`.
 */
export const serviceDir = path.join(root, 'build');
export const serviceEntry = path.join(serviceDir, 'serve.js');
const sources = [
  path.join(root, 'server', 'src'),
  path.join(root, 'worker', 'src'),
  path.join(root, 'package-lock.json'),
  fileURLToPath(import.meta.url),
];

/**
 * Compiles server and worker to JavaScript when the build is missing or older than its sources,
 * so that `npm start` and the systemd units run plain `node` with no transpiler alongside.
 * Packages stay in node_modules (native sqlite3, piscina's own worker file, the drivers of the
 * scale-out roles); only the project's own code is bundled.
 * @returns whether a build ran.
 */
export async function ensureServiceBuilt(): Promise<boolean> {
  const builtAt = fs.statSync(serviceEntry, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (builtAt > Math.max(...sources.map(newestMtimeMs))) return false;
  // Built aside and moved in file by file, the entry last: a server starting meanwhile (tests
  // start several at once) sees the old build or the new one, never half of one.
  const staging = fs.mkdtempSync(path.join(root, '.build-'));
  try {
    await build({
      entryPoints: { serve: 'server/src/serve.ts', worker: 'worker/src/index.ts' },
      outdir: staging,
      absWorkingDir: root,
      bundle: true,
      // Modules the server imports on demand (the Redis job queue) stay chunks of their own, and
      // with them the packages only they load.
      splitting: true,
      packages: 'external',
      platform: 'node',
      format: 'esm',
      target: 'node20',
      sourcemap: 'linked',
      logLevel: 'warning',
    });
    fs.mkdirSync(serviceDir, { recursive: true });
    const files = fs.readdirSync(staging).sort((a, b) => Number(a === 'serve.js') - Number(b === 'serve.js'));
    for (const file of files) fs.renameSync(path.join(staging, file), path.join(serviceDir, file));
    // Chunks of earlier builds (their names carry a hash) go.
    for (const file of fs.readdirSync(serviceDir)) if (!files.includes(file)) fs.rmSync(path.join(serviceDir, file));
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
  return true;
}

// `npm start`'s preparation: the web UI it serves, then the service itself.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!(await ensureUiBuilt())) console.log('The web UI is up to date (renderer/dist).');
  const ran = await ensureServiceBuilt();
  if (!ran) console.log('The service is up to date (build/).');
}
