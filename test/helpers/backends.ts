import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A throwaway server: where to reach it, and how to end it (its files go with it). */
export interface Backend {
  url: string;
  stop(): Promise<void>;
}

/** @returns the folder of Debian's PostgreSQL programs (initdb, pg_ctl), newest version first, or null. */
export function postgresBinDir(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions.length ? path.join(root, versions[0], 'bin') : null;
}

/** @returns the redis-server program, or null. */
export function redisServerBin(): string | null {
  return ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((p) => fs.existsSync(p)) ?? null;
}

/** @returns a TCP port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a PostgreSQL cluster in a temp folder on a free port, tuned for throwaway data (no
 * fsync). PostgreSQL refuses to run as root, so as root the cluster belongs to `postgres`.
 * @returns the superuser's URL of the `postgres` database.
 */
export async function startPostgres(): Promise<Backend> {
  const bin = postgresBinDir();
  if (!bin) throw new Error('PostgreSQL is not installed (apt-get install postgresql)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-pg-'));
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { uid, gid } = await postgresUser();
    fs.chownSync(dir, uid, gid);
  }
  const as = (program: string, args: string[]) =>
    asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, program), ...args]) : run(path.join(bin, program), args);
  const data = path.join(dir, 'data');
  await as('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses='127.0.0.1'",
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    // Test files run in parallel, each with its servers' pools.
    '-c max_connections=400',
  ].join(' ');
  await as('pg_ctl', ['-D', data, '-o', options, '-l', path.join(dir, 'log'), '-w', '-t', '60', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async stop() {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout } = await run('id', ['postgres']);
  const uid = /uid=(\d+)/.exec(stdout);
  const gid = /gid=(\d+)/.exec(stdout);
  if (!uid || !gid) throw new Error('No postgres user to run PostgreSQL as (running as root)');
  return { uid: Number(uid[1]), gid: Number(gid[1]) };
}

/**
 * Starts redis-server on a free port, in memory only.
 * @returns its URL.
 */
export async function startRedis(): Promise<Backend> {
  const bin = redisServerBin();
  if (!bin) throw new Error('redis-server is not installed (apt-get install redis-server)');
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flexsite-redis-'));
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.includes('Ready to accept connections')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${seen}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
