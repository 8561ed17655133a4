/**
 * Self time per function of a `node --cpu-prof` profile, highest first, idle left out:
 * `npx tsx bench/_profileTop.ts <file.cpuprofile> [entries=20] [last seconds]` (the last seconds
 * keep only the end of the profile, e.g. a load phase after the server's start).
 */
import fs from 'node:fs';

interface Profile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

const [file, entries = '20', lastSeconds] = process.argv.slice(2);
const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
let elapsed = 0;
const at = profile.timeDeltas.map((d) => (elapsed += d));
const from = lastSeconds ? elapsed - Number(lastSeconds) * 1e6 : -Infinity;

const self = new Map<string, number>();
let busy = 0;
profile.samples.forEach((id, i) => {
  if (at[i] < from) return;
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
  if (functionName === '(idle)') return;
  const name = `${functionName || '(anonymous)'} ${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(server|worker)\//, '$1/')}:${lineNumber + 1}`;
  self.set(name, (self.get(name) ?? 0) + profile.timeDeltas[i]);
  busy += profile.timeDeltas[i];
});
console.log(`busy ${(busy / 1000).toFixed(0)} ms of ${((elapsed - Math.max(0, from)) / 1000).toFixed(0)} ms`);
for (const [name, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(entries))) {
  console.log(`${((us / busy) * 100).toFixed(1).padStart(5)}%  ${name}`);
}
