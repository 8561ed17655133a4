import path from 'node:path';

/** What the desktop app keeps in its user-data folder. */
export interface ShellLayout {
  /** The shell's own settings (LAN access, port). */
  settingsFile: string;
  /** The server's data folder (`FLEXSITE_DATA_DIR`): store, logs, backups. */
  dataDir: string;
}

/**
 * The desktop app's folders: the settings file next to the server's data folder, so that a
 * backup of the data folder never carries machine-specific shell settings along.
 * @param userData Electron's `app.getPath('userData')`.
 * @returns the layout.
 */
export function shellLayout(userData: string): ShellLayout {
  return {
    settingsFile: path.join(userData, 'settings.json'),
    dataDir: path.join(userData, 'data'),
  };
}
