import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';

/**
 * Planting files into the real tree to show that an import rule of .dependency-cruiser.js bites:
 * a planted file is removed after the test that planted it.
 */

/** Unique per run, so that planted files never meet another run's. */
export const tag = `planted${process.pid}`;
const planted: string[] = [];
const depcruise = path.resolve('node_modules/.bin/depcruise');

afterEach(() => {
  for (const file of planted.splice(0)) fs.rmSync(file, { force: true });
});

/** Writes a source file into the real tree, removed after the test. */
export function plant(file: string, text: string): string {
  fs.writeFileSync(file, text);
  planted.push(file);
  return file;
}

/** The checker's verdict on some files of the tree (and what they import), with the project's rules. */
export function check(files: string[]): { ok: boolean; output: string } {
  const run = spawnSync(depcruise, files, { encoding: 'utf8' });
  return { ok: run.status === 0, output: run.stdout + run.stderr };
}
