import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';
import { createServerHost } from '../../main/src/serverHost.ts';
import type { ServerChannel } from '../../main/src/supervisor.ts';

/**
 * A fresh temporary folder, removed when the test ends.
 * @returns its path.
 */
export function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-shell-'));
  onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A server channel to a host in this process, instead of Electron's utility process. */
export interface InProcessChannel extends ServerChannel {
  /** Makes the "process" end, as a crash would. */
  crash(code: number): void;
}

/**
 * Connects the supervisor to a real server host running in this process.
 * @returns the channel.
 */
export function inProcessChannel(): InProcessChannel {
  const host = createServerHost();
  let onMessage: Parameters<ServerChannel['onMessage']>[0] = () => {};
  let onExit: Parameters<ServerChannel['onExit']>[0] = () => {};
  return {
    send: (message) => void host.reply(message).then((reply) => onMessage(reply)),
    onMessage: (listener) => (onMessage = listener),
    onExit: (listener) => (onExit = listener),
    kill: () => {},
    crash: (code) => {
      void host.handle({ op: 'stop' });
      onExit(code);
    },
  };
}
