import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { dataFolder } from '../../server/src/dataFolder.ts';
import { openStore } from '../../server/src/db/connection.ts';
import { lockStore } from '../../server/src/db/sqlite/storeLock.ts';
import { lanUrls } from '../../main/src/lanUrls.ts';
import { shellLayout } from '../../main/src/layout.ts';
import { defaultSettings, readSettings, serverEnv, writeSettings, type ShellSettings } from '../../main/src/settings.ts';
import { HostError, ServerSupervisor } from '../../main/src/supervisor.ts';
import { inProcessChannel, tempDir, type InProcessChannel } from '../helpers/shell.ts';

const env = (settings: ShellSettings, dataDir: string, port: number) => ({
  ...serverEnv(settings, dataDir, port),
  FLEXSITE_LOG_LEVEL: 'silent',
});
const ready = async (url: string) => (await fetch(`${url}/api/v3_0/health/ready`)).status;

/** Writes through a second connection, as the CLI does next to a running server. */
async function addAccount(dataDir: string, name: string): Promise<void> {
  const db = openStore(dataFolder(dataDir).store);
  await db('account').insert({ name });
  await db.destroy();
}

async function accountNames(dataDir: string): Promise<string[]> {
  const db = openStore(dataFolder(dataDir).store);
  const rows: { name: string }[] = await db('account').select('name');
  await db.destroy();
  return rows.map((r) => r.name);
}

describe('server supervision', () => {
  it('starts the server, switches LAN access on the same port, backs up and restores with a restart', async () => {
    const { dataDir, settingsFile } = shellLayout(tempDir());
    let settings = readSettings(settingsFile);
    const supervisor = new ServerSupervisor(inProcessChannel);
    try {
      const first = await supervisor.start(env(settings, dataDir, 0));
      expect(first).toMatchObject({
        url: `http://127.0.0.1:${first.port}`,
        dataDir,
        store: dataFolder(dataDir).store,
        logFile: dataFolder(dataDir).logFile,
      });
      expect(await ready(first.url)).toBe(200);

      settings = { ...settings, allowLan: true };
      writeSettings(settingsFile, settings);
      const lan = await supervisor.restart(env(readSettings(settingsFile), dataDir, first.port));
      expect(lan.port).toBe(first.port);
      expect(lan.url).toBe(`http://localhost:${first.port}`); // bound to 0.0.0.0
      for (const url of lanUrls(lan.port)) expect(await ready(url)).toBe(200);

      await addAccount(dataDir, 'In the backup');
      const file = path.join(tempDir(), 'backup.sqlite');
      const done = await supervisor.backup(file);
      expect(done).toEqual({ file, bytes: fs.statSync(file).size });
      await expect(supervisor.backup(file)).rejects.toMatchObject({ name: 'BackupError' });
      await expect(supervisor.backup(file, { overwrite: true })).resolves.toMatchObject({ file });
      await addAccount(dataDir, 'After the backup');

      const restored = await supervisor.restore(file);
      expect(restored.server.port).toBe(first.port);
      expect(restored.previous).toContain(dataFolder(dataDir).backups);
      expect(await ready(restored.server.url)).toBe(200);
      const names = await accountNames(dataDir);
      expect(names).toContain('In the backup');
      expect(names).not.toContain('After the backup');

      // A refused file: the server comes back on the store it had.
      const junk = path.join(tempDir(), 'junk.sqlite');
      fs.writeFileSync(junk, 'junk');
      await expect(supervisor.restore(junk)).rejects.toEqual(new HostError('BackupError', `${junk} is not a SQLite database.`));
      expect(supervisor.current?.port).toBe(first.port);
      expect(await accountNames(dataDir)).toEqual(names);
    } finally {
      await supervisor.stop();
    }
  });

  it('stops cleanly: store closed with nothing left in its write-ahead log, folder free', async () => {
    const dataDir = tempDir();
    const supervisor = new ServerSupervisor(inProcessChannel);
    await supervisor.start(env(defaultSettings, dataDir, 0));
    await addAccount(dataDir, 'Written');
    await supervisor.stop();
    expect(supervisor.current).toBeUndefined();
    expect(fs.existsSync(`${dataFolder(dataDir).store}-wal`)).toBe(false);
    const lock = await lockStore(dataFolder(dataDir).lock);
    await lock.release();
    expect(await accountNames(dataDir)).toContain('Written');
  });

  it('resumes a job that was running when the server went away, and fails one interrupted twice', async () => {
    const dataDir = tempDir();
    const supervisor = new ServerSupervisor(inProcessChannel);
    await supervisor.start(env(defaultSettings, dataDir, 0));
    await supervisor.stop();
    const now = Date.now();
    const job = (id: string, attempts: number) => ({
      id,
      queue: 'scheduling',
      status: 'started',
      args: '{}',
      cache_key: id,
      created_at: now,
      started_at: now,
      attempts,
    });
    const db = openStore(dataFolder(dataDir).store);
    await db('job').insert([job('once', 1), job('twice', 2)]);
    try {
      await supervisor.start(env(defaultSettings, dataDir, 0));
      expect(await db('job').where({ id: 'twice' }).first()).toMatchObject({
        status: 'failed',
        error: expect.stringContaining('JobInterrupted'),
      });
      // The resumed job runs again (and fails on its empty arguments): attempted a second time.
      let resumed: { status: string; attempts: number } | undefined;
      for (let i = 0; i < 200 && !['finished', 'failed'].includes(resumed?.status ?? ''); i++) {
        resumed = await db('job').where({ id: 'once' }).first();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(resumed).toMatchObject({ status: 'failed', attempts: 2 });
    } finally {
      await db.destroy();
      await supervisor.stop();
    }
  });

  it('reports a server process that ended on its own and fails what was waiting on it', async () => {
    let channel: InProcessChannel | undefined;
    const crashes: number[] = [];
    const supervisor = new ServerSupervisor(() => (channel = inProcessChannel()), { onCrash: (code) => crashes.push(code) });
    await supervisor.start(env(defaultSettings, tempDir(), 0));
    channel!.crash(3);
    expect(crashes).toEqual([3]);
    expect(supervisor.current).toBeUndefined();
    await supervisor.stop();
  });
});
