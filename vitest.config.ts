import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'server/src/**/*.test.ts', 'worker/src/**/*.test.ts'],
    // Each test file starts its own server over its own SQLite file; files run in parallel processes.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    env: { TZ: 'UTC' },
    // The browser tests need the built web UI; this builds it once per run when it is missing or stale.
    globalSetup: ['test/e2e/globalSetup.ts'],
  },
});
