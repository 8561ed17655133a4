import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataFolder } from '../../server/src/dataFolder.ts';
import { backupStore, inspectBackup, restoreStore } from '../../server/src/db/backup.ts';
import { migrations } from '../../server/src/db/migrations/index.ts';
import { BackupError, StoreBusyError } from '../../server/src/db/errors.ts';
import { factories } from '../helpers/factories.ts';
import { tempDir } from '../helpers/shell.ts';
import { startTestServer } from '../helpers/testServer.ts';

const accountNames = async (t: Awaited<ReturnType<typeof startTestServer>>, token: string) => {
  const res = await t.request('GET', '/api/v3_0/accounts', { token });
  expect(res.status).toBe(200);
  return (res.body as { name: string }[]).map((a) => a.name).sort();
};

describe('backup and restore of the store', () => {
  it('backs up while the server writes, and a restore brings exactly that data back after a restart', async () => {
    const dataDir = tempDir();
    const backup = path.join(tempDir(), 'backup.sqlite');
    let t = await startTestServer({}, dataDir);
    const f = factories(t.db);
    const { token } = await f.user({ accountId: (await f.account({ name: 'Site' })).id, roles: ['admin'] });
    await f.account({ name: 'Before' });

    // Writes keep coming while the copy is taken; the copy is one consistent moment of the store.
    const writes = Array.from({ length: 20 }, (_, i) => f.account({ name: `During ${i}` }));
    const done = await backupStore(t.db, backup);
    await Promise.all(writes);
    expect(done).toEqual({ file: backup, bytes: fs.statSync(backup).size });
    expect((await inspectBackup(backup)).migrations).toEqual(migrations.map(([name]) => name));
    await expect(backupStore(t.db, backup)).rejects.toThrow('already exists');

    await f.account({ name: 'After' });
    const names = await accountNames(t, token);
    expect(names).toContain('After');

    // Not while the server holds the folder.
    await expect(restoreStore(dataDir, backup)).rejects.toBeInstanceOf(StoreBusyError);
    await t.close();

    const { previous } = await restoreStore(dataDir, backup);
    expect(previous).toMatch(/backups[\\/]before-restore-.*\.sqlite$/);
    expect(path.dirname(previous!)).toBe(dataFolder(dataDir).backups);

    t = await startTestServer({}, dataDir);
    try {
      const restored = await accountNames(t, token);
      expect(restored).toContain('Before');
      expect(restored).not.toContain('After');
      expect(restored.length).toBeLessThan(names.length);
    } finally {
      await t.close();
    }
  });

  it('refuses files that are not a Flexsite store, and leaves the store alone then', async () => {
    const dataDir = tempDir();
    const t = await startTestServer({}, dataDir);
    const good = path.join(tempDir(), 'good.sqlite');
    await backupStore(t.db, good);
    await t.db.raw("INSERT INTO knex_migrations (name, batch, migration_time) VALUES ('9999_from_the_future', 9, 0)");
    const newer = path.join(tempDir(), 'newer.sqlite');
    await backupStore(t.db, newer);
    await t.close();

    const scratch = tempDir();
    const text = path.join(scratch, 'notes.txt');
    fs.writeFileSync(text, 'SQLite format 2 — not really');
    const other = path.join(scratch, 'other.sqlite');
    const foreign = await startTestServer({}, scratch);
    await foreign.db.raw('DROP TABLE knex_migrations');
    await backupStore(foreign.db, other);
    await foreign.close();

    const before = fs.readFileSync(dataFolder(dataDir).store);
    await expect(restoreStore(dataDir, path.join(scratch, 'missing.sqlite'))).rejects.toThrow('does not exist');
    await expect(restoreStore(dataDir, text)).rejects.toThrow('is not a SQLite database');
    await expect(restoreStore(dataDir, other)).rejects.toThrow('is not a Flexsite store');
    await expect(restoreStore(dataDir, newer)).rejects.toThrow('comes from a newer Flexsite (migrations 9999_from_the_future)');
    await expect(restoreStore(dataDir, newer)).rejects.toBeInstanceOf(BackupError);
    expect(fs.readFileSync(dataFolder(dataDir).store).equals(before)).toBe(true);
    expect(fs.existsSync(dataFolder(dataDir).backups)).toBe(false);
    await expect(restoreStore(dataDir, good)).resolves.toMatchObject({ store: dataFolder(dataDir).store });
  });
});
