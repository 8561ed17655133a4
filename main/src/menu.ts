import type { MenuItemConstructorOptions } from 'electron';
import type { LanState } from './bridge.ts';

/** What the menu items do; main.ts implements them with Electron. */
export interface MenuActions {
  copy(text: string): void;
  setAllowLan(allow: boolean): void;
  openDataFolder(): void;
  backup(): void;
  restore(): void;
  viewLogs(): void;
  quit(): void;
}

/**
 * The shell's own items, shared by the tray menu and the application's File menu: the API
 * address (click to copy), the LAN switch with the addresses for devices, and the data actions.
 * @param state what to show.
 * @param actions what the items do.
 * @returns the menu template.
 */
export function shellMenuItems(state: LanState, actions: MenuActions): MenuItemConstructorOptions[] {
  const address = (url: string, label: string): MenuItemConstructorOptions => ({
    label: `${label}: ${url}`,
    click: () => actions.copy(url),
  });
  const lan: MenuItemConstructorOptions[] = state.allowLan
    ? state.lanUrls.length
      ? state.lanUrls.map((url) => address(url, 'For devices'))
      : [{ label: 'No network address found', enabled: false }]
    : [];
  return [
    state.localUrl ? address(state.localUrl, 'API') : { label: 'Server not running', enabled: false },
    {
      label: 'Allow devices on the local network',
      type: 'checkbox',
      checked: state.allowLan,
      click: (item) => actions.setAllowLan(item.checked),
    },
    ...lan,
    { type: 'separator' },
    { label: 'Open Data Folder', click: () => actions.openDataFolder() },
    { label: 'Back Up Data…', click: () => actions.backup() },
    { label: 'Restore From Backup…', click: () => actions.restore() },
    { label: 'View Logs', click: () => actions.viewLogs() },
    { type: 'separator' },
    { label: 'Quit Flexsite', accelerator: 'CmdOrCtrl+Q', click: () => actions.quit() },
  ];
}

/**
 * The application menu: the shell items under File, plus the standard Edit, View and Window
 * menus (macOS also gets its app menu first).
 * @param state what to show.
 * @param actions what the items do.
 * @param platform process.platform.
 * @returns the menu template.
 */
export function applicationMenu(state: LanState, actions: MenuActions, platform: NodeJS.Platform): MenuItemConstructorOptions[] {
  return [
    ...(platform === 'darwin' ? [{ role: 'appMenu' } satisfies MenuItemConstructorOptions] : []),
    { label: 'File', submenu: shellMenuItems(state, actions) },
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
}
