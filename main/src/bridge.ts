/**
 * The contract between the window and the shell: the IPC channel names and the object the
 * preload script exposes as `window.flexsite`. Everything else the UI does goes over the HTTP
 * API, exactly like a device on the LAN.
 */

/** Whether devices on the LAN may reach the API, and the addresses to give them. */
export interface LanState {
  allowLan: boolean;
  /** The API address on this computer; null while the server is not running. */
  localUrl: string | null;
  /** The API addresses for devices on the LAN; empty while LAN access is off. */
  lanUrls: string[];
}

/** `window.flexsite` in the desktop app; absent when the UI is opened in a browser. */
export interface FlexsiteBridge {
  version(): Promise<string>;
  dataFolder(): Promise<string>;
  lan(): Promise<LanState>;
  /** Switches LAN access; the server restarts on the new address before this resolves. */
  setAllowLan(allow: boolean): Promise<LanState>;
}

/** IPC channel per bridge function. */
export const channels = {
  version: 'flexsite:version',
  dataFolder: 'flexsite:data-folder',
  lan: 'flexsite:lan',
  setAllowLan: 'flexsite:set-allow-lan',
} as const satisfies Record<keyof FlexsiteBridge, string>;
