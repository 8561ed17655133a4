import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import { dataFolder } from '../../server/src/dataFolder.ts';
import { openLogFile } from '../../server/src/logFile.ts';
import { createLogger } from '../../server/src/logger.ts';
import { tempDir } from '../helpers/shell.ts';

describe('log file', () => {
  it('rotates by size and keeps a fixed number of older files', () => {
    const file = path.join(tempDir(), 'logs', 'flexsite.log');
    const log = openLogFile(file, { maxBytes: 100, keep: 2 });
    const line = (n: number) => `${JSON.stringify({ n, pad: 'x'.repeat(30) })}\n`;
    for (let n = 0; n < 10; n++) log.write(line(n));
    log.close();
    log.write(line(99)); // ignored once closed
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['flexsite.log', 'flexsite.log.1', 'flexsite.log.2']);
    for (const name of ['flexsite.log', 'flexsite.log.1', 'flexsite.log.2']) {
      expect(fs.statSync(path.join(path.dirname(file), name)).size).toBeLessThanOrEqual(100);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe(line(8) + line(9));
  });

  it('receives one JSON line per request (method, path, status, time) and errors with their stack', async () => {
    const dataDir = tempDir();
    const server = await startServer(loadConfig({ PORT: '0', FLEXSITE_DATA_DIR: dataDir, FLEXSITE_LOG_LEVEL: 'info' }));
    await (await fetch(`${server.url}/api/ops/ping`)).text();
    await server.close();
    const file = dataFolder(dataDir).logFile;
    const request = fs
      .readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === 'request');
    expect(request).toEqual({
      level: 30,
      time: expect.any(String),
      method: 'GET',
      path: '/api/ops/ping',
      status: 200,
      ms: expect.any(Number),
      msg: 'request',
    });

    const logFile = openLogFile(file);
    createLogger('fatal', logFile).fatal({ err: new Error('boom') }, 'crashed');
    logFile.close();
    const crash = JSON.parse(fs.readFileSync(file, 'utf8').trim().split('\n').at(-1)!);
    expect(crash).toMatchObject({ level: 60, msg: 'crashed', err: { type: 'Error', message: 'boom' } });
    expect(crash.err.stack).toContain('logFile.test.ts');
  });
});
