import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = path.join(root, 'renderer', 'dist', 'index.html');
const sources = [
  path.join(root, 'renderer', 'src'),
  path.join(root, 'renderer', 'index.html'),
  path.join(root, 'vite.config.ts'),
  path.join(root, 'package-lock.json'),
];

/** @returns the newest modification time of a file or of anything in a folder, 0 when missing. */
export function newestMtimeMs(target: string): number {
  const stat = fs.statSync(target, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...fs.readdirSync(target).map((name) => newestMtimeMs(path.join(target, name))));
}

/**
 * Builds the web UI when `renderer/dist` is missing or older than its sources, so that
 * `npm start` and the browser tests always serve the current UI.
 * @returns whether a build ran.
 */
export async function ensureUiBuilt(): Promise<boolean> {
  const builtAt = fs.statSync(built, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  if (builtAt > Math.max(...sources.map(newestMtimeMs))) return false;
  const { build } = await import('vite');
  // Vite builds React for whatever NODE_ENV says, and test runners set it to `test`: the UI
  // served and tested must be the production build.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({ configFile: path.join(root, 'vite.config.ts'), mode: 'production', logLevel: 'info' });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ran = await ensureUiBuilt();
  if (!ran) console.log('The web UI is up to date (renderer/dist).');
}
