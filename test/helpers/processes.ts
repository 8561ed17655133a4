import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment of a child: this one's, without settings that leaked in, plus the given ones. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('FLEXSITE_') && k !== 'PORT' && k !== 'HOST'));
  return { ...clean, FLEXSITE_LOG_LEVEL: 'silent', ...env };
}

/**
 * Runs a command in the project with stdin closed (so no TTY) and waits for it to exit.
 * @param env settings for the child, e.g. FLEXSITE_DATA_DIR.
 * @returns exit code and output.
 */
function run(command: string, args: string[], env: Record<string, string>): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end();
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `npm run --silent <script> -- <args>`, as an operator runs it. */
export const runNpmScript = (script: string, args: string[], env: Record<string, string>) =>
  run('npm', ['run', '--silent', script, '--', ...args], env);

/** `npm run --silent cli -- <args>`, exactly as the README has operators run the command line. */
export const runCliThroughNpm = (args: string[], env: Record<string, string>) => runNpmScript('cli', args, env);

/** The command line's entry file, read from package.json's `cli` script (`tsx <entry>`). */
const cliEntry = (() => {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const entry = /^tsx (\S+)$/.exec(pkg.scripts.cli)?.[1];
  if (!entry) throw new Error(`package.json's cli script is not "tsx <entry>": ${pkg.scripts.cli}`);
  return entry;
})();

/**
 * The command line with `<args>` as `npm run cli` runs it, but started by Node with the tsx loader
 * directly: npm and the tsx launcher each cost a process start of their own, seconds per command
 * in a file that runs dozens. `runCliThroughNpm` keeps the operators' way covered.
 */
export const runCli = (args: string[], env: Record<string, string>) => run(process.execPath, ['--import', 'tsx', cliEntry, ...args], env);

/**
 * @returns the JSON object on the last line of stdout, which `--json` promises.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a test reads answers of any shape and checks them with assertions, not types
export function lastJsonLine(stdout: string): any {
  const lines = stdout.trimEnd().split('\n');
  return JSON.parse(lines[lines.length - 1]);
}

/**
 * Starts `npm start` (or another npm script, e.g. `worker`) in its own process group, so that
 * stopping it also stops the server process npm started.
 * @param env settings for the server.
 * @returns the child; end it with `stopProcess`.
 */
export function startNpm(env: Record<string, string>, script = 'start'): ChildProcess {
  return spawn('npm', ['run', '--silent', script], { cwd: root, env: childEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** @returns the first stdout line that matches, or rejects with everything seen when the process exits first. */
export function waitForLine(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const line = seen.split('\n').find((l) => pattern.test(l));
      if (line !== undefined) resolve(line);
    });
    child.stderr!.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    child.on('close', (code) => reject(new Error(`exited with ${code} before printing ${pattern}:\n${seen}`)));
  });
}

/**
 * Stops a process group started by `startNpm` and waits until it is gone.
 * @param signal SIGKILL to stop it the way a crash or power loss would.
 */
export async function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const closed = new Promise((resolve) => child.once('close', resolve));
  process.kill(-child.pid!, signal);
  await closed;
}
