import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import { dataFolder } from '../../server/src/dataFolder.ts';
import { StoreBusyError } from '../../server/src/db/errors.ts';
import { shellLayout } from '../../main/src/layout.ts';
import { localUrl } from '../../main/src/lanUrls.ts';
import { waitForReady } from '../../main/src/readiness.ts';
import { tempDir } from '../helpers/shell.ts';

const config = (dataDir: string, level = 'silent') =>
  loadConfig({ PORT: '0', HOST: '127.0.0.1', FLEXSITE_DATA_DIR: dataDir, FLEXSITE_LOG_LEVEL: level });

describe('readiness wait', () => {
  it('returns once a started server answers its readiness check', async () => {
    const server = await startServer(config(tempDir()));
    try {
      await expect(waitForReady(localUrl(server.port))).resolves.toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('gives up with the reason when nothing answers', async () => {
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as net.AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    await expect(waitForReady(localUrl(port), { timeoutMs: 300, intervalMs: 50 })).rejects.toThrow(
      `Flexsite at ${localUrl(port)} was not ready`,
    );
  });
});

describe('data folder layout', () => {
  it('keeps the store, its lock and the log under the data folder in the user-data folder', async () => {
    const userData = tempDir();
    const { dataDir } = shellLayout(userData);
    const server = await startServer(config(dataDir, 'error'));
    const folder = dataFolder(dataDir);
    try {
      expect(folder).toEqual({
        root: path.join(userData, 'data'),
        store: path.join(userData, 'data', 'flexsite.sqlite'),
        lock: path.join(userData, 'data', 'flexsite.lock'),
        logFile: path.join(userData, 'data', 'logs', 'flexsite.log'),
        backups: path.join(userData, 'data', 'backups'),
      });
      for (const file of [folder.store, folder.lock, folder.logFile]) expect(fs.existsSync(file), file).toBe(true);
      // One server per data folder.
      await expect(startServer(config(dataDir))).rejects.toBeInstanceOf(StoreBusyError);
    } finally {
      await server.close();
    }
    // Closed: the folder is free again and the store has no write-ahead log left over.
    expect(fs.existsSync(`${folder.store}-wal`)).toBe(false);
    const again = await startServer(config(dataDir));
    await again.close();
  });
});
