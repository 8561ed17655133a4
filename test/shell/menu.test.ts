import type { MenuItemConstructorOptions } from 'electron';
import { describe, expect, it } from 'vitest';
import { applicationMenu, shellMenuItems, type MenuActions } from '../../main/src/menu.ts';

function recorder() {
  const calls: unknown[][] = [];
  const actions = new Proxy({} as MenuActions, {
    get:
      (_, name) =>
      (...args: unknown[]) =>
        calls.push([name, ...args]),
  });
  return { calls, actions };
}

const click = (item: MenuItemConstructorOptions, checked = false) => (item.click as (item: { checked: boolean }) => void)({ checked });

describe('shell menu', () => {
  it('shows the API address, the LAN switch with the device addresses, and the data actions', () => {
    const { calls, actions } = recorder();
    const items = shellMenuItems({ localUrl: 'http://127.0.0.1:5000', allowLan: true, lanUrls: ['http://192.168.1.20:5000'] }, actions);
    expect(items.map((i) => i.label ?? i.type)).toEqual([
      'API: http://127.0.0.1:5000',
      'Allow devices on the local network',
      'For devices: http://192.168.1.20:5000',
      'separator',
      'Open Data Folder',
      'Back Up Data…',
      'Restore From Backup…',
      'View Logs',
      'separator',
      'Quit Flexsite',
    ]);
    expect(items[1]).toMatchObject({ type: 'checkbox', checked: true });
    click(items[2]);
    click(items[1], false);
    for (const item of items.slice(4, 8)) click(item);
    expect(calls).toEqual([
      ['copy', 'http://192.168.1.20:5000'],
      ['setAllowLan', false],
      ['openDataFolder'],
      ['backup'],
      ['restore'],
      ['viewLogs'],
    ]);
  });

  it('says so when the server is down or no LAN address exists, and has no device addresses with LAN access off', () => {
    const { actions } = recorder();
    const lanWithoutAddress = shellMenuItems({ localUrl: null, allowLan: true, lanUrls: [] }, actions);
    expect(lanWithoutAddress.slice(0, 3).map((i) => [i.label, i.enabled])).toEqual([
      ['Server not running', false],
      ['Allow devices on the local network', undefined],
      ['No network address found', false],
    ]);
    const local = shellMenuItems({ localUrl: 'http://127.0.0.1:5000', allowLan: false, lanUrls: [] }, actions);
    expect(local.filter((i) => i.label?.startsWith('For devices'))).toEqual([]);
  });

  it('puts the shell items under File, with the app menu first on macOS', () => {
    const { actions } = recorder();
    const state = { localUrl: null, allowLan: false, lanUrls: [] };
    expect(applicationMenu(state, actions, 'linux').map((m) => m.label ?? m.role)).toEqual(['File', 'editMenu', 'viewMenu', 'windowMenu']);
    expect(applicationMenu(state, actions, 'darwin').map((m) => m.label ?? m.role)).toEqual([
      'appMenu',
      'File',
      'editMenu',
      'viewMenu',
      'windowMenu',
    ]);
  });
});
