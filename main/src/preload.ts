/**
 * Preload script of the window (bundled as CommonJS `dist/preload.cjs`: sandboxed preloads
 * cannot be ES modules). It exposes `window.flexsite` and nothing else.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { channels, type FlexsiteBridge } from './bridge.ts';

const bridge = {
  version: () => ipcRenderer.invoke(channels.version),
  dataFolder: () => ipcRenderer.invoke(channels.dataFolder),
  lan: () => ipcRenderer.invoke(channels.lan),
  setAllowLan: (allow: boolean) => ipcRenderer.invoke(channels.setAllowLan, allow === true),
} satisfies FlexsiteBridge;

contextBridge.exposeInMainWorld('flexsite', bridge);
