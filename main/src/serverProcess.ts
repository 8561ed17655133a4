/**
 * Entry of the server process (bundled as `dist/server.js`). Electron starts it with
 * `utilityProcess.fork()`; it then answers the shell's requests over `process.parentPort`.
 * Imported instead (tests of the bundle), it only exports.
 */
import { createServerHost, type HostMessage } from './serverHost.ts';

export { startServer } from '../../server/src/app.ts';
export { createServerHost };

interface ParentPort {
  on(event: 'message', listener: (event: { data: HostMessage }) => void): void;
  postMessage(message: unknown): void;
}

const parentPort = (process as NodeJS.Process & { parentPort?: ParentPort }).parentPort;
if (parentPort) {
  const host = createServerHost();
  parentPort.on('message', (event) => void host.reply(event.data).then((reply) => parentPort.postMessage(reply)));
  // The OS ending the session sends SIGTERM to every process: close the store before going.
  process.once('SIGTERM', () => void host.handle({ op: 'stop' }).finally(() => process.exit(0)));
}
