import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 20: the "trigger a schedule" sequence lives in server/src/commands/ only, so that routes,
 * legacy routes, the CLI and automations all run the same checks (the asset's account included).
 * This walks the source and refuses a scheduling job queued anywhere else; the queue itself
 * (server/src/jobs/) re-queues a failed job's fallback under its own queue name.
 */
const root = path.resolve('server/src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

describe('commands/', () => {
  it('is the only place that queues a scheduling job', () => {
    const outside = sources(root)
      .filter((file) => !file.startsWith(path.join(root, 'commands') + path.sep) && !file.startsWith(path.join(root, 'jobs') + path.sep))
      .filter((file) => /\benqueue\(\s*['"`]scheduling['"`]/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(root, file));
    expect(outside).toEqual([]);
  });

  it('holds the trigger command, which the v3.0 and legacy routes and automations call', () => {
    const callers = ['routes/v3_0/schedules.ts', 'routes/legacy/udiMessages.ts', 'automations/runAutomation.ts'];
    for (const file of callers) expect(fs.readFileSync(path.join(root, file), 'utf8'), file).toMatch(/commands\/triggerSchedule\.ts/);
  });
});
