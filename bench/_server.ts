import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureServiceBuilt, serviceEntry } from '../scripts/ensureService.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Starts the compiled server (`build/serve.js`, built first when stale), as `npm start` and the
 * systemd unit run it, in its own process on an ephemeral loopback port over a data folder, and
 * waits until it listens (a worker-only process: until it runs jobs; its url is '').
 * @param extraArgs node options, e.g. `--cpu-prof`.
 * @param env further settings, e.g. FLEXSITE_DATABASE_URL or FLEXSITE_ROLE.
 */
export async function startServer(
  dataDir: string,
  extraArgs: string[] = [],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string; stop: () => Promise<void> }> {
  await ensureServiceBuilt();
  const child = spawn(process.execPath, [...extraArgs, serviceEntry], {
    cwd: root,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', FLEXSITE_DATA_DIR: dataDir, FLEXSITE_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const ready = env.FLEXSITE_ROLE === 'worker' ? /Flexsite worker running jobs()/ : /Flexsite listening on (http:\/\/127\.0\.0\.1:\d+)/;
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const m = ready.exec(seen);
      if (m) resolve(m[1]);
      if (seen.length > 1e6) seen = seen.slice(-1000);
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, url, stop };
}
