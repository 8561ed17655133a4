import net from 'node:net';
import type os from 'node:os';
import { describe, expect, it } from 'vitest';
import { lanUrls, localUrl } from '../../main/src/lanUrls.ts';
import { choosePort, isPortFree } from '../../main/src/ports.ts';

const iface = (address: string, family: 'IPv4' | 'IPv6', internal = false) =>
  ({ address, family, internal, netmask: '', mac: '', cidr: null }) as os.NetworkInterfaceInfo;

describe('port choice', () => {
  it('takes the configured port while it is free, and leaves the choice to the server when it is taken', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as net.AddressInfo).port;
    try {
      expect(await isPortFree(taken, '127.0.0.1')).toBe(false);
      expect(await choosePort(taken, '127.0.0.1')).toBe(0);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    expect(await isPortFree(taken, '127.0.0.1')).toBe(true);
    expect(await choosePort(taken, '127.0.0.1')).toBe(taken);
  });
});

describe('addresses to show', () => {
  it('lists one URL per external IPv4 address for devices, and loopback for the window', () => {
    const interfaces = {
      lo: [iface('127.0.0.1', 'IPv4', true), iface('::1', 'IPv6', true)],
      eth0: [iface('192.168.1.20', 'IPv4'), iface('fe80::1', 'IPv6')],
      wlan0: [iface('10.0.0.7', 'IPv4')],
      docker0: undefined,
    };
    expect(lanUrls(5000, interfaces)).toEqual(['http://10.0.0.7:5000', 'http://192.168.1.20:5000']);
    expect(lanUrls(5000, { lo: interfaces.lo })).toEqual([]);
    expect(localUrl(5000)).toBe('http://127.0.0.1:5000');
  });
});
