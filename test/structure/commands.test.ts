import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Issue 20: one command per use case. Triggering a schedule or a forecast, storing sensor data,
 * creating, changing or deleting an asset or an automation and creating a user live in server/src/commands/ only, taking a
 * principal, so that the v3.0 routes, the legacy routes, the CLI and automations all run the same
 * checks (the principal's current rights, the asset's account, the value rules). This walks the
 * source and refuses, outside commands/:
 *
 * - a scheduling or forecasting job queued anywhere (the queue itself, server/src/jobs/, re-queues
 *   a failed job's fallback under its own queue name);
 * - in the ways in (routes/, cli/, automations/), a direct store write of these use cases: the
 *   store's belief, asset, automation and user writers (`recordBeliefs`, `recordBeliefSets`,
 *   `createAsset`, `updateAsset`, `deleteAsset`, `createAutomation`, `updateAutomation`,
 *   `deleteAutomation`, `createUser`, `updateUser`, `setRoles` from server/src/store/), or a raw insert or update of their tables.
 *
 * Job handlers (scheduling/, forecasting/, tariffs/) store their own results after re-checking the
 * job's principal; they are not ways in and are not walked here.
 */
const root = path.resolve('server/src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

const inside = (file: string, dir: string) => file.startsWith(path.join(root, dir) + path.sep);

/** The store's writers of the guarded use cases, by store module. */
const guardedWriters: Record<string, string[]> = {
  'store/beliefs.ts': ['recordBeliefs', 'recordBeliefSets'],
  'store/assets.ts': ['createAsset', 'updateAsset', 'deleteAsset'],
  'store/automations.ts': ['createAutomation', 'updateAutomation', 'deleteAutomation'],
  'store/users.ts': ['createUser', 'updateUser', 'setRoles'],
};

/** A raw knex insert or update on the tables of the guarded use cases, within one statement. */
const rawTableWrite = /\(\s*['"`](timed_belief|generic_asset|automation|user)['"`]\s*\)[^;]*?\.(insert|update)\(/;

/**
 * The guarded store writes a source file makes: writers imported by name (renamed or not) from
 * the store, writers called through a namespace import of the store, raw table writes.
 * @param file the file's path (its imports are resolved against it).
 * @returns one line per write, e.g. `store/users.ts createUser`.
 */
export function guardedStoreWrites(file: string, text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/import\s+(?:type\s+)?(\{[^}]*\}|\*\s+as\s+(\w+))\s+from\s+['"]([^'"]+)['"]/g)) {
    const module = path
      .relative(root, path.resolve(path.dirname(file), m[3]))
      .split(path.sep)
      .join('/');
    const writers = guardedWriters[module];
    if (!writers) continue;
    if (m[2]) {
      for (const w of writers) if (new RegExp(`\\b${m[2]}\\.${w}\\(`).test(text)) found.push(`${module} ${w}`);
    } else {
      const names = m[1]
        .slice(1, -1)
        .split(',')
        .map(
          (n) =>
            n
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0],
        );
      for (const w of writers) if (names.includes(w)) found.push(`${module} ${w}`);
    }
  }
  const raw = text.match(rawTableWrite);
  if (raw) found.push(`raw ${raw[2]} of ${raw[1]}`);
  return found;
}

/**
 * Writes the walk lets through, each with its reason. The first administrator is made by
 * `POST /setup` together with the first account, in one transaction that checks no user exists
 * yet: nobody is there to act as, and the route answers only on the machine itself. API 2.0
 * deletes a device (a sensor) under its own rule (members of the account) and the asset with it
 * when it held only that device: not the v3.0 asset delete (account-admins), which would refuse it.
 */
const allowed: Record<string, string[]> = {
  'routes/v3_0/setup.ts': ['store/users.ts createUser'],
  // Signing in records the time of the login; it changes nothing a user or admin set.
  'routes/api.ts': ['store/users.ts updateUser'],
  'routes/legacy/v2Assets.ts': ['store/assets.ts deleteAsset'],
};

describe('commands/', () => {
  it('is the only place that queues a scheduling or forecasting job', () => {
    const outside = sources(root)
      .filter((file) => !inside(file, 'commands') && !inside(file, 'jobs'))
      .filter((file) => /\benqueue\(\s*['"`](scheduling|forecasting)['"`]/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(root, file));
    expect(outside).toEqual([]);
  });

  it('is the only way routes, legacy routes, the CLI and automations write beliefs, assets, automations and users', () => {
    const writes = ['routes', 'cli', 'automations']
      .flatMap((dir) => sources(path.join(root, dir)))
      .flatMap((file) => {
        const name = path.relative(root, file).split(path.sep).join('/');
        return guardedStoreWrites(file, fs.readFileSync(file, 'utf8'))
          .filter((w) => !allowed[name]?.includes(w))
          .map((w) => `${name}: ${w}`);
      });
    expect(writes).toEqual([]);
  });

  it('is walked precisely: store writers by name, by namespace and raw writes count; commands and reads do not', () => {
    const file = path.join(root, 'routes/v3_0/example.ts');
    const flagged = (text: string) => guardedStoreWrites(file, text);
    expect(flagged(`import { getUser, createUser as make } from '../../store/users.ts';\nmake(trx, {});`)).toEqual([
      'store/users.ts createUser',
    ]);
    expect(flagged(`import * as assets from '../../store/assets.ts';\nawait assets.updateAsset(db, 1, {});`)).toEqual([
      'store/assets.ts updateAsset',
    ]);
    expect(flagged(`await trx('generic_asset').where({ id }).update({ name });`)).toEqual(['raw update of generic_asset']);
    expect(flagged(`await db('timed_belief').insert(rows);`)).toEqual(['raw insert of timed_belief']);
    // Reads, other tables and the commands themselves pass.
    expect(flagged(`import * as assets from '../../store/assets.ts';\nawait assets.getAsset(db, 1);`)).toEqual([]);
    expect(flagged(`import { createUser } from '../../commands/users.ts';\nawait createUser(deps, p, input);`)).toEqual([]);
    expect(flagged(`await db('user').where({ id }).first();\nawait trx('sensor').update({ name });`)).toEqual([]);
  });

  it('holds the commands that the v3.0 and legacy routes, the CLI and automations call', () => {
    const callers: Record<string, string[]> = {
      'commands/triggerSchedule.ts': ['routes/v3_0/schedules.ts', 'routes/legacy/udiMessages.ts', 'automations/runAutomation.ts'],
      'commands/triggerForecast.ts': ['routes/v3_0/forecasts.ts'],
      // sensorUploads.ts answers the v3.0 data endpoints and the legacy data messages alike.
      'commands/storeSensorData.ts': ['routes/sensorUploads.ts', 'routes/legacy/dataMessages.ts', 'cli/beliefs.ts'],
      'commands/assets.ts': ['routes/v3_0/assets.ts', 'routes/legacy/v2Assets.ts', 'cli/resources.ts'],
      // API 2.0's user endpoints run the v3.0 ones (routes/legacy/v2Users.ts).
      'commands/users.ts': ['routes/v3_0/users.ts', 'routes/v3_0/passwords.ts', 'cli/resources.ts'],
      'commands/automations.ts': ['routes/v3_0/automations.ts', 'cli/automations.ts', 'cli/resources.ts'],
    };
    for (const [command, files] of Object.entries(callers)) {
      for (const file of files) {
        const text = fs.readFileSync(path.join(root, file), 'utf8');
        expect(text, `${file} calls ${command}`).toContain(`${path.basename(command)}'`);
      }
    }
  });
});
