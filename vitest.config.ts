import { defineConfig } from 'vitest/config';
import { postgresBinDir, redisServerBin } from './test/helpers/backends.ts';

// The API, scheduling and migration suites run a second time on PostgreSQL + Redis wherever
// those are installed (CI installs them); the servers are started by the run itself.
const sharedBackends = postgresBinDir() !== null && redisServerBin() !== null;

const SIMULATED_WEEKS = ['test/sim/week*.test.ts'];
const STRUCTURE = ['test/structure/**/*.test.ts'];

export default defineConfig({
  test: {
    // Each test file starts its own server over its own store; files run in parallel processes.
    pool: 'forks',
    // Two files at once: vitest's default (cores − 1) runs one at a time on a 2-core machine,
    // which leaves the second core idle while a file waits on its server, store or browser.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { TZ: 'UTC' },
    // The browser tests need the built web UI; this builds it once per run when it is missing or stale.
    globalSetup: ['test/e2e/globalSetup.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts', 'server/src/**/*.test.ts', 'worker/src/**/*.test.ts'],
          exclude: [...SIMULATED_WEEKS, ...STRUCTURE],
        },
      },
      // The structure checks plant files into the real tree to show a rule bite, and scan the whole
      // tree: run alone, one file at a time, no other file sees a planted file or scans past one.
      {
        extends: true,
        test: { name: 'structure', include: STRUCTURE, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
      // The simulated weeks run last, one at a time, on the embedded store: each takes minutes, and
      // its time is the loop's own (a week must run in under two minutes), not that of the other
      // files sharing the two cores with it.
      {
        extends: true,
        test: { name: 'sim', include: SIMULATED_WEEKS, maxWorkers: 1, sequence: { groupOrder: 2 } },
      },
      ...(sharedBackends
        ? [
            {
              extends: true,
              test: {
                name: 'postgresql',
                include: ['test/api/**/*.test.ts', 'test/scheduling/**/*.test.ts', 'test/db/**/*.test.ts', 'test/scaleOut/**/*.test.ts'],
                env: { TZ: 'UTC', FLEXSITE_TEST_BACKEND: 'postgresql' },
                globalSetup: ['test/helpers/backendsSetup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
