import os from 'node:os';

/**
 * The API address on this computer. The window always uses loopback: it works in both modes,
 * and `localhost` may resolve to ::1 where the server only listens on IPv4.
 * @param port the server's port.
 * @returns the URL.
 */
export function localUrl(port: number): string {
  return `http://127.0.0.1:${port}`;
}

/**
 * The addresses to give devices on the LAN: one per external IPv4 address of this computer
 * (the server binds 0.0.0.0, so IPv6 addresses would not answer).
 * @param port the server's port.
 * @param interfaces the network interfaces, normally os.networkInterfaces().
 * @returns the URLs, sorted.
 */
export function lanUrls(port: number, interfaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces()): string[] {
  const addresses = Object.values(interfaces)
    .flatMap((infos) => infos ?? [])
    .filter((info) => info.family === 'IPv4' && !info.internal)
    .map((info) => info.address);
  return [...new Set(addresses)].sort().map((address) => `http://${address}:${port}`);
}
