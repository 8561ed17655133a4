import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { factories } from '../helpers/factories.ts';
import { lastJsonLine, runCli, runCliThroughNpm } from '../helpers/processes.ts';
import { tempDir } from '../helpers/shell.ts';
import { startTestServer } from '../helpers/testServer.ts';

// Six CLI runs, each a new Node process: generous time when the suite runs in parallel. The first
// goes through `npm run cli` as the README has operators run it; the others start the entry directly.
describe('npm run cli -- db backup / db restore', { timeout: 180_000 }, () => {
  it('backs up a running server, refuses to restore under it, and restores once it is stopped', async () => {
    const dataDir = tempDir();
    const env = { FLEXSITE_DATA_DIR: dataDir };
    const file = path.join(tempDir(), 'site.sqlite');
    let t = await startTestServer({}, dataDir);
    try {
      await factories(t.db).account({ name: 'Kept' });
      const backup = await runCliThroughNpm(['db', 'backup', file, '--json'], env);
      expect(backup.code, backup.stderr).toBe(0);
      expect(lastJsonLine(backup.stdout)).toEqual({ file, bytes: fs.statSync(file).size });

      const again = await runCli(['db', 'backup', file], env);
      expect(again).toMatchObject({ code: 1, stderr: `error: ${file} already exists; choose a new file name.\n` });

      await factories(t.db).account({ name: 'Dropped' });
      const busy = await runCli(['db', 'restore', file], env);
      expect(busy).toMatchObject({ code: 1, stderr: `error: A Flexsite server is using the data folder ${dataDir}; stop it first.\n` });
    } finally {
      await t.close();
    }

    const restore = await runCli(['db', 'restore', file, '--json'], env);
    expect(restore.code, restore.stderr).toBe(0);
    expect(lastJsonLine(restore.stdout)).toEqual({
      store: path.join(dataDir, 'flexsite.sqlite'),
      previous: expect.stringContaining(path.join(dataDir, 'backups', 'before-restore-')),
    });

    t = await startTestServer({}, dataDir);
    try {
      const names = (await t.db('account').select('name')).map((r: { name: string }) => r.name);
      expect(names).toContain('Kept');
      expect(names).not.toContain('Dropped');
    } finally {
      await t.close();
    }

    const garbage = path.join(tempDir(), 'garbage.sqlite');
    fs.writeFileSync(garbage, 'hello');
    expect(await runCli(['db', 'restore', garbage], env)).toMatchObject({
      code: 1,
      stderr: `error: ${garbage} is not a SQLite database.\n`,
    });
  });
});
