import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const idle = path.resolve(import.meta.dirname, '../fixtures/schedulerPlugins/idle.mjs');

/**
 * A scheduler plugin folder of the test's own, as an operator would give in
 * FLEXSITE_SCHEDULER_PLUGINS: `idle` keeps every device idle; `held` does the same once the file
 * `hold` is gone, so that a test can change things while a job is being solved. (Worker threads
 * get no environment, so the hold file is written into the module.)
 * @param hold the file whose existence holds `held` jobs.
 * @returns the folder.
 */
export function schedulerPluginFolder(hold = path.join(os.tmpdir(), `flexsite-no-hold-${process.pid}`)): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-plugins-'));
  fs.copyFileSync(idle, path.join(dir, 'idle.mjs'));
  fs.writeFileSync(
    path.join(dir, 'held.mjs'),
    `import fs from 'node:fs';
import { schedule as idle } from ${JSON.stringify(pathToFileURL(idle).href)};
export async function schedule(problem) {
  for (let i = 0; i < 1200 && fs.existsSync(${JSON.stringify(hold)}); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return idle(problem);
}
`,
  );
  return dir;
}
