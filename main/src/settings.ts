import fs from 'node:fs';
import path from 'node:path';

/** Settings of the desktop app, kept in `settings.json` in the user-data folder. */
export interface ShellSettings {
  /** Bind on all interfaces so devices on the LAN reach the API; loopback only when off. */
  allowLan: boolean;
  /** The port to serve on; another free one is used for a run while it is taken. */
  port: number;
}

export const defaultSettings: ShellSettings = { allowLan: false, port: 5000 };

const isPort = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 65535;

/**
 * Reads the settings. A missing or unreadable file, or a bad value in it, gives the defaults:
 * the app must start even after someone edited the file by hand.
 * @param file the settings file.
 * @returns the settings.
 */
export function readSettings(file: string): ShellSettings {
  let stored: Partial<Record<keyof ShellSettings, unknown>> = {};
  try {
    stored = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // missing or not JSON: defaults
  }
  return {
    allowLan: typeof stored?.allowLan === 'boolean' ? stored.allowLan : defaultSettings.allowLan,
    port: isPort(stored?.port) ? stored.port : defaultSettings.port,
  };
}

/**
 * Saves the settings atomically (write, then rename), so a crash never leaves half a file.
 * @param file the settings file; its folder is created.
 * @param settings the settings.
 */
export function writeSettings(file: string, settings: ShellSettings): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.partial`;
  fs.writeFileSync(partial, JSON.stringify(settings, null, 2) + '\n');
  fs.renameSync(partial, file);
}

/**
 * The bind address for the settings.
 * @param settings the settings.
 * @returns all IPv4 interfaces with LAN access, else loopback.
 */
export function bindHost(settings: ShellSettings): string {
  return settings.allowLan ? '0.0.0.0' : '127.0.0.1';
}

/**
 * The server's environment for the settings (the variables `loadConfig()` reads).
 * @param settings the settings.
 * @param dataDir the data folder.
 * @param port the port chosen for this run.
 * @returns HOST, PORT and FLEXSITE_DATA_DIR.
 */
export function serverEnv(settings: ShellSettings, dataDir: string, port: number): Record<string, string> {
  return { HOST: bindHost(settings), PORT: String(port), FLEXSITE_DATA_DIR: dataDir };
}
