import { startServer, type RunningServer } from '../../server/src/app.ts';
import { loadConfig } from '../../server/src/config.ts';
import { dataFolder } from '../../server/src/dataFolder.ts';
import { backupStore, restoreStore } from '../../server/src/db/backup.ts';

/** What the shell asks of the server process. */
export type HostRequest =
  | { op: 'start'; env: Record<string, string> }
  | { op: 'stop' }
  | { op: 'backup'; file: string; overwrite: boolean }
  | { op: 'restore'; dataDir: string; file: string };

/** Where a started server answers and keeps its files. */
export interface ServerInfo {
  url: string;
  port: number;
  dataDir: string;
  store: string;
  logFile: string;
}

/** A request as sent over the process boundary, and its answer. */
export type HostMessage = HostRequest & { id: number };
export type HostReply = { id: number; ok: true; result: unknown } | { id: number; ok: false; error: { name: string; message: string } };

/** The server side of the shell: runs one server at a time and answers the shell's requests. */
export interface ServerHost {
  handle(request: HostRequest): Promise<unknown>;
  /** Answers a message with a reply that is safe to post back (errors as plain data). */
  reply(message: HostMessage): Promise<HostReply>;
}

/**
 * Creates the host. It runs wherever the shell puts it: in Electron's utility process, or
 * in-process in tests.
 * @returns the host.
 */
export function createServerHost(): ServerHost {
  let server: RunningServer | undefined;

  const handle = async (request: HostRequest): Promise<unknown> => {
    switch (request.op) {
      case 'start': {
        if (server) throw new Error('The server is already running.');
        // The process environment still applies (FLEXSITE_LOG_LEVEL, …); the shell's settings win.
        const config = loadConfig({ ...process.env, ...request.env });
        server = await startServer(config);
        const folder = dataFolder(config.dataDir);
        return {
          url: server.url,
          port: server.port,
          dataDir: folder.root,
          store: folder.store,
          logFile: folder.logFile,
        } satisfies ServerInfo;
      }
      case 'stop': {
        // Lets running jobs finish for a grace period, re-queues the rest, closes the store.
        const running = server;
        server = undefined;
        await running?.close();
        return null;
      }
      case 'backup':
        if (!server) throw new Error('The server is not running.');
        return backupStore(server.services.db, request.file, { overwrite: request.overwrite });
      case 'restore':
        if (server) throw new Error('Stop the server before restoring.');
        return restoreStore(request.dataDir, request.file);
    }
  };

  return {
    handle,
    async reply(message) {
      const { id, ...request } = message;
      try {
        return { id, ok: true, result: await handle(request) };
      } catch (err) {
        const e = err instanceof Error ? err : new Error(String(err));
        return { id, ok: false, error: { name: e.name, message: e.message } };
      }
    },
  };
}
