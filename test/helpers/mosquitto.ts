import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/** A free TCP port on the loopback interface. */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`mosquitto did not open port ${port}`);
}

/** Debian's Mosquitto on a free port with a config of its own, keeping sessions and queued messages across restarts. */
export interface Mosquitto {
  url: string;
  /** Stops the broker (SIGTERM: it saves its store first). */
  stop(): Promise<void>;
  /** Starts it again on the same port over the same store. */
  start(): Promise<void>;
}

export async function startMosquitto(): Promise<Mosquitto> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-mosquitto-'));
  const port = await freePort();
  const conf = path.join(dir, 'mosquitto.conf');
  fs.writeFileSync(
    conf,
    // Started as root, Mosquitto would switch to its own user, which cannot write the store in a temp folder.
    [
      `listener ${port} 127.0.0.1`,
      `user ${os.userInfo().username}`,
      'allow_anonymous true',
      'persistence true',
      `persistence_location ${dir}/`,
      'log_dest none',
    ].join('\n') + '\n',
  );
  let child: ChildProcess | undefined;
  const broker: Mosquitto = {
    url: `mqtt://127.0.0.1:${port}`,
    async start() {
      child = spawn('/usr/sbin/mosquitto', ['-c', conf], { stdio: 'ignore' });
      await waitForPort(port);
    },
    async stop() {
      const running = child;
      if (!running || running.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
      });
    },
  };
  await broker.start();
  return broker;
}
