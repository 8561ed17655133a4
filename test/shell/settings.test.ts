import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../server/src/config.ts';
import { shellLayout } from '../../main/src/layout.ts';
import { defaultSettings, readSettings, serverEnv, writeSettings } from '../../main/src/settings.ts';
import { tempDir } from '../helpers/shell.ts';

describe('shell settings file', () => {
  it('gives the defaults (loopback, port 5000) when there is no file yet', () => {
    const { settingsFile } = shellLayout(tempDir());
    expect(readSettings(settingsFile)).toEqual({ allowLan: false, port: 5000 });
  });

  it('falls back per value when the file was edited badly', () => {
    const { settingsFile } = shellLayout(tempDir());
    fs.writeFileSync(settingsFile, 'not json');
    expect(readSettings(settingsFile)).toEqual(defaultSettings);
    fs.writeFileSync(settingsFile, JSON.stringify({ allowLan: true, port: 'many' }));
    expect(readSettings(settingsFile)).toEqual({ allowLan: true, port: 5000 });
  });

  it('persists the LAN switch, and it decides the bind address the server gets', () => {
    const userData = tempDir();
    const { settingsFile, dataDir } = shellLayout(userData);
    writeSettings(settingsFile, { ...readSettings(settingsFile), allowLan: true });
    const saved = readSettings(settingsFile);
    expect(saved).toEqual({ allowLan: true, port: 5000 });
    expect(fs.readdirSync(userData)).toEqual(['settings.json']);

    const lan = loadConfig(serverEnv(saved, dataDir, 5123));
    expect({ host: lan.host, port: lan.port, dataDir: lan.dataDir }).toEqual({
      host: '0.0.0.0',
      port: 5123,
      dataDir: path.join(userData, 'data'),
    });
    writeSettings(settingsFile, { ...saved, allowLan: false });
    expect(loadConfig(serverEnv(readSettings(settingsFile), dataDir, 5123)).host).toBe('127.0.0.1');
  });
});
