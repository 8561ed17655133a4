import type { HostMessage, HostReply, HostRequest, ServerInfo } from './serverHost.ts';
import { localUrl } from './lanUrls.ts';
import { waitForReady } from './readiness.ts';

/** The shell's view of the server process, whatever starts it (Electron's utilityProcess in the app). */
export interface ServerChannel {
  send(message: HostMessage): void;
  onMessage(listener: (reply: HostReply) => void): void;
  onExit(listener: (code: number) => void): void;
  kill(): void;
}

/** A request the server process answered with an error; `name` is the server-side error class. */
export class HostError extends Error {
  constructor(name: string, message: string) {
    super(message);
    this.name = name;
  }
}

/**
 * Starts, stops and restarts the server process and forwards backup and restore to it. The
 * process is forked on first start and kept between restarts; a restore stops the server,
 * replaces the store and starts the server again on the same port.
 */
export class ServerSupervisor {
  private channel: ServerChannel | undefined;
  private pending = new Map<number, { resolve(result: unknown): void; reject(err: Error): void }>();
  private nextId = 1;
  private info: ServerInfo | undefined;
  private env: Record<string, string> | undefined;

  /**
   * @param spawn forks the server process.
   * @param options readiness timeout, and what to do when the process dies on its own.
   */
  constructor(
    private spawn: () => ServerChannel,
    private options: { readyTimeoutMs?: number; onCrash?: (code: number) => void } = {},
  ) {}

  /** The running server, if any. */
  get current(): ServerInfo | undefined {
    return this.info;
  }

  /**
   * Starts the server and waits until its readiness check passes.
   * @param env the server's settings (HOST, PORT, FLEXSITE_DATA_DIR, …).
   * @returns where it answers.
   */
  async start(env: Record<string, string>): Promise<ServerInfo> {
    const info = (await this.call({ op: 'start', env })) as ServerInfo;
    this.info = info;
    this.env = env;
    await waitForReady(localUrl(info.port), { timeoutMs: this.options.readyTimeoutMs });
    return info;
  }

  /** Stops the server (running jobs finish or are re-queued, the store is closed) and ends the process. */
  async stop(): Promise<void> {
    const channel = this.channel;
    if (!channel) return;
    await this.call({ op: 'stop' });
    this.info = undefined;
    if (this.channel === channel) this.channel = undefined;
    channel.kill();
  }

  /**
   * Restarts the server with new settings, e.g. another bind address.
   * @param env the new settings.
   * @returns where it answers now.
   */
  async restart(env: Record<string, string>): Promise<ServerInfo> {
    await this.call({ op: 'stop' });
    this.info = undefined;
    return this.start(env);
  }

  /**
   * Writes a consistent copy of the store while the server runs.
   * @param file the backup file.
   * @param options overwrite: replace an existing file, else refuse it.
   * @returns its path and size.
   */
  async backup(file: string, options: { overwrite?: boolean } = {}): Promise<{ file: string; bytes: number }> {
    return (await this.call({ op: 'backup', file, overwrite: options.overwrite ?? false })) as { file: string; bytes: number };
  }

  /**
   * Replaces the store with a backup: stops the server, restores, starts it again on the
   * same port. When the backup is refused, the server comes back on the old store.
   * @param file the backup.
   * @returns where the previous store was kept, and where the server answers.
   */
  async restore(file: string): Promise<{ previous: string | null; server: ServerInfo }> {
    const { info, env } = this;
    if (!info || !env) throw new Error('The server is not running.');
    await this.call({ op: 'stop' });
    this.info = undefined;
    let outcome: { previous: string | null } | Error;
    try {
      outcome = (await this.call({ op: 'restore', dataDir: info.dataDir, file })) as { previous: string | null };
    } catch (err) {
      outcome = err instanceof Error ? err : new Error(String(err));
    }
    // Back on the same port either way: on the restored store, or on the old one after a refusal.
    const server = await this.start({ ...env, PORT: String(info.port) });
    if (outcome instanceof Error) throw outcome;
    return { previous: outcome.previous, server };
  }

  private call(request: HostRequest): Promise<unknown> {
    const channel = (this.channel ??= this.connect());
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      channel.send({ ...request, id });
    });
  }

  private connect(): ServerChannel {
    const channel = this.spawn();
    channel.onMessage((reply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (reply.ok) waiter.resolve(reply.result);
      else waiter.reject(new HostError(reply.error.name, reply.error.message));
    });
    channel.onExit((code) => {
      if (this.channel !== channel) return;
      this.channel = undefined;
      this.info = undefined;
      for (const waiter of this.pending.values()) waiter.reject(new Error(`The server process ended (code ${code}).`));
      this.pending.clear();
      this.options.onCrash?.(code);
    });
    return channel;
  }
}
