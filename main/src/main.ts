/**
 * Electron main process: app lifecycle, the window, tray and menus, and the IPC behind the
 * preload bridge. Only Electron calls live here; the rest is in plain modules next to it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { app, BrowserWindow, clipboard, dialog, ipcMain, Menu, nativeImage, shell, Tray, utilityProcess } from 'electron';
import { channels, type LanState } from './bridge.ts';
import { lanUrls, localUrl } from './lanUrls.ts';
import { shellLayout } from './layout.ts';
import { applicationMenu, shellMenuItems, type MenuActions } from './menu.ts';
import { choosePort } from './ports.ts';
import { bindHost, readSettings, serverEnv, writeSettings, type ShellSettings } from './settings.ts';
import type { HostReply } from './serverHost.ts';
import { ServerSupervisor, type ServerChannel } from './supervisor.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
// The server runs from the unpacked copy of the archive: dlopen (sqlite3) and worker threads
// (piscina, the scheduling worker) need real files, and its imports then resolve there too.
const serverEntry = path.join(here.replace(/app\.asar(?=[\\/]|$)/, 'app.asar.unpacked'), 'server.js');
const iconFile = path.join(here, '..', 'main', 'resources', 'icon.png');

let window: BrowserWindow | undefined;
let tray: Tray | undefined;
let settings: ShellSettings;
let stopping: Promise<void> | undefined;
let stopped = false;

const layout = shellLayout(app.getPath('userData'));
const supervisor = new ServerSupervisor(forkServer, {
  onCrash: (code) => {
    if (stopped) return;
    refresh();
    // Asking rather than restarting by itself: a server that fails at every start would loop.
    const answer = dialog.showMessageBoxSync({
      type: 'error',
      buttons: ['Restart', 'Quit'],
      message: 'The Flexsite server stopped',
      detail: `It ended with code ${code}. The logs are in ${path.join(layout.dataDir, 'logs')}.`,
    });
    if (answer === 0) void runServer().then(refresh, fail);
    else app.quit();
  },
});

function forkServer(): ServerChannel {
  const child = utilityProcess.fork(serverEntry, [], { serviceName: 'Flexsite server', stdio: 'inherit' });
  return {
    send: (message) => child.postMessage(message),
    onMessage: (listener) => child.on('message', (reply: HostReply) => listener(reply)),
    onExit: (listener) => child.on('exit', listener),
    kill: () => void child.kill(),
  };
}

async function runServer() {
  const port = await choosePort(settings.port, bindHost(settings));
  return supervisor.start(serverEnv(settings, layout.dataDir, port));
}

function lanState(): LanState {
  const port = supervisor.current?.port;
  return {
    allowLan: settings.allowLan,
    localUrl: port ? localUrl(port) : null,
    lanUrls: port && settings.allowLan ? lanUrls(port) : [],
  };
}

async function setAllowLan(allow: boolean): Promise<LanState> {
  settings = { ...settings, allowLan: allow };
  writeSettings(layout.settingsFile, settings);
  const port = supervisor.current?.port;
  try {
    // Same port, so the window and devices keep their address.
    if (!port) throw new Error('not running');
    await supervisor.restart(serverEnv(settings, layout.dataDir, port));
  } catch {
    await runServer();
  }
  refresh();
  return lanState();
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));
const fail = (err: unknown) => dialog.showErrorBox('Flexsite', errorText(err));

const actions: MenuActions = {
  copy: (text) => clipboard.writeText(text),
  setAllowLan: (allow) => void setAllowLan(allow).catch(fail),
  openDataFolder: () => void shell.openPath(layout.dataDir),
  viewLogs: () => {
    const logFile = supervisor.current?.logFile;
    void shell.openPath(logFile && fs.existsSync(logFile) ? logFile : layout.dataDir);
  },
  backup: () => void backup().catch(fail),
  restore: () => void restore().catch(fail),
  quit: () => app.quit(),
};

async function backup(): Promise<void> {
  const day = new Date().toISOString().slice(0, 10);
  const { canceled, filePath } = await dialog.showSaveDialog({
    title: 'Back up Flexsite data',
    defaultPath: path.join(app.getPath('documents'), `flexsite-backup-${day}.sqlite`),
    filters: [{ name: 'Flexsite backup', extensions: ['sqlite'] }],
  });
  if (canceled || !filePath) return;
  // The save dialog already asked before replacing an existing file.
  const done = await supervisor.backup(filePath, { overwrite: true });
  await dialog.showMessageBox({ type: 'info', message: 'Backup written', detail: `${done.file} (${Math.ceil(done.bytes / 1024)} kB)` });
}

async function restore(): Promise<void> {
  const { canceled, filePaths } = await dialog.showOpenDialog({
    title: 'Restore Flexsite data',
    properties: ['openFile'],
    filters: [
      { name: 'Flexsite backup', extensions: ['sqlite'] },
      { name: 'All files', extensions: ['*'] },
    ],
  });
  if (canceled || !filePaths[0]) return;
  const answer = await dialog.showMessageBox({
    type: 'warning',
    buttons: ['Restore', 'Cancel'],
    defaultId: 1,
    cancelId: 1,
    message: 'Replace all Flexsite data with this backup?',
    detail: 'The server restarts. The current data is kept in the "backups" folder of the data folder.',
  });
  if (answer.response !== 0) return;
  const { previous } = await supervisor.restore(filePaths[0]);
  window?.reload();
  refresh();
  await dialog.showMessageBox({
    type: 'info',
    message: 'Backup restored',
    detail: previous ? `The previous data was kept as ${previous}.` : '',
  });
}

function refresh(): void {
  const state = lanState();
  Menu.setApplicationMenu(Menu.buildFromTemplate(applicationMenu(state, actions, process.platform)));
  tray ??= new Tray(nativeImage.createFromPath(iconFile).resize({ width: 16, height: 16 }));
  tray.setToolTip(state.localUrl ? `Flexsite — ${state.localUrl}` : 'Flexsite');
  tray.setContextMenu(Menu.buildFromTemplate(shellMenuItems(state, actions)));
  // A restart may have landed on another port (the old one was taken meanwhile).
  const shown = window?.webContents.getURL();
  if (window && state.localUrl && shown && new URL(shown).origin !== state.localUrl) void window.loadURL(state.localUrl);
}

function showWindow(): void {
  const port = supervisor.current?.port;
  if (!port) return;
  if (window) {
    if (window.isMinimized()) window.restore();
    window.focus();
    return;
  }
  const origin = localUrl(port);
  window = new BrowserWindow({
    width: 1280,
    height: 840,
    show: false,
    icon: iconFile,
    webPreferences: {
      preload: path.join(here, 'preload.cjs'),
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
    },
  });
  // The window shows Flexsite only; links elsewhere open in the browser.
  window.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:/.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  window.webContents.on('will-navigate', (event, url) => {
    if (new URL(url).origin !== new URL(window?.webContents.getURL() || origin).origin) event.preventDefault();
  });
  window.once('ready-to-show', () => window?.show());
  window.on('closed', () => (window = undefined));
  void window.loadURL(origin);
}

function registerIpc(): void {
  // Only the Flexsite page may use the bridge, whatever else a frame might come to show.
  const handle = <T>(channel: string, answer: (arg: unknown) => T) =>
    ipcMain.handle(channel, (event, arg: unknown) => {
      const port = supervisor.current?.port;
      if (!port || !event.senderFrame || new URL(event.senderFrame.url).origin !== localUrl(port)) throw new Error('Not allowed.');
      return answer(arg);
    });
  handle(channels.version, () => app.getVersion());
  handle(channels.dataFolder, () => layout.dataDir);
  handle(channels.lan, () => lanState());
  handle(channels.setAllowLan, (allow) => setAllowLan(allow === true));
}

async function boot(): Promise<void> {
  settings = readSettings(layout.settingsFile);
  registerIpc();
  try {
    await runServer();
  } catch (err) {
    dialog.showErrorBox('Flexsite could not start', errorText(err));
    stopped = true;
    app.exit(1);
    return;
  }
  refresh();
  showWindow();
}

if (!app.requestSingleInstanceLock()) {
  app.exit(0);
} else {
  app.on('second-instance', showWindow);
  app.on('activate', showWindow);
  // Devices on the LAN depend on the server: with LAN access on, closing the window keeps it
  // running in the tray; otherwise closing the window quits.
  app.on('window-all-closed', () => {
    if (!settings.allowLan) app.quit();
  });
  app.on('before-quit', (event) => {
    if (stopped) return;
    event.preventDefault();
    tray?.setToolTip('Flexsite — finishing running jobs…');
    stopping ??= supervisor
      .stop()
      .catch((err: unknown) => console.error('Flexsite server did not stop cleanly:', err))
      .finally(() => {
        stopped = true;
        app.quit();
      });
  });
  void app.whenReady().then(boot);
}
