import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
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
  return { child, url, stop: stopper(child) };
}

/** Ends a server process and waits for it. */
const stopper = (child: ChildProcess) => async () => {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
};

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A loopback port nothing listens on now. */
export async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * Starts the compiled server (built first when stale) on a free loopback port, logging warnings
 * only, and waits until `/health/ready` answers 200: ready to serve, not merely listening.
 * @param env further settings, e.g. the embedded broker's port.
 * @returns the process, its url, how long it took to be ready (from its start), and `stop`.
 */
export async function startReadyServer(dataDir: string, env: Record<string, string> = {}) {
  await ensureServiceBuilt();
  const port = await freePort();
  const started = performance.now();
  // BENCH_CPU_PROF=<folder>: the server runs under `node --cpu-prof`, as in bench/dataPath.ts.
  const profile = process.env.BENCH_CPU_PROF;
  const child = spawn(process.execPath, [...(profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : []), serviceEntry], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', FLEXSITE_DATA_DIR: dataDir, FLEXSITE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    const status = await fetch(`${url}/api/v3_0/health/ready`).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) break;
    await sleep(10);
  }
  return { child, url, readyMs: performance.now() - started, stop: stopper(child) };
}
