import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lastJsonLine, runCli } from '../helpers/processes.ts';
import { onSharedBackends } from '../helpers/sharedBackends.ts';
import { tempDir } from '../helpers/shell.ts';
import { startTestServer } from '../helpers/testServer.ts';

describe('db backup', () => {
  it('copies a SQLite store, and points a PostgreSQL store to pg_dump instead of pretending', async () => {
    const t = await startTestServer();
    try {
      const file = path.join(tempDir(), 'copy.sqlite');
      const res = await runCli(['db', 'backup', file, '--json'], t.storeSettings);
      if (onSharedBackends) {
        expect(res.code).not.toBe(0);
        expect(res.stderr).toContain('pg_dump');
        const restore = await runCli(['db', 'restore', file], t.storeSettings);
        expect(restore.code).not.toBe(0);
        expect(restore.stderr).toContain('pg_restore');
      } else {
        expect(res.code, res.stderr).toBe(0);
        expect(lastJsonLine(res.stdout)).toMatchObject({ file });
      }
    } finally {
      await t.close();
    }
  });
});
