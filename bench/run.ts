import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench`: runs every benchmark script in this folder, one process each so that one
 * benchmark's memory and warm caches do not colour the next. Each prints its own figures.
 * Pass names to run a subset: `npm run bench -- data solver`.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const scripts = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.startsWith('_'))
  .filter((f) => !wanted.length || wanted.includes(path.basename(f, '.ts')))
  .sort();
let failed = 0;
for (const script of scripts) {
  console.log(`\n=== ${script} ===`);
  const res = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, script)], { stdio: 'inherit' });
  if (res.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
