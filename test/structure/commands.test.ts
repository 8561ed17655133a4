import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { check, plant, tag } from '../helpers/planting.ts';

/**
 * One command per use case (server/src/commands/), taking a principal, so that the v3.0 routes,
 * the legacy routes, the CLI, automations and devices all run the same checks and every write
 * leaves its audit entry. The store's writes live in server/src/store/write/, and the rule
 * `commands-are-the-only-writers` of .dependency-cruiser.js (run by `npm test` as
 * `npm run lint:deps`, over every import, type-only ones included) lets only commands/ and the
 * store import them, besides the bookkeeping it names. This shows the rule bite on planted
 * imports, and checks what an import cannot show: queueing, raw table writes, and that commands/
 * exports nothing but commands.
 */
const root = path.resolve('server/src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sources(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

const exported = (node: ts.Node) =>
  ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

const parse = (text: string) => ts.createSourceFile('command.ts', text, ts.ScriptTarget.Latest, true);

/** The types a command's context is given as: the context's own, and those of commands/ picked from it (e.g. `Queueing`). */
function contextTypes(texts: string[]): Set<string> {
  const names = new Set(['Writes', 'Uses', 'CommandContext']);
  for (const file of texts.map(parse)) {
    for (const s of file.statements) {
      // An alias built from a context type (`Pick<CommandContext, …>`, `Writes<'jobs'>`) is one too.
      if (ts.isTypeAliasDeclaration(s) && /\b(CommandContext|Writes|Uses)\b/.test(s.type.getText(file))) names.add(s.name.text);
    }
  }
  return names;
}

/**
 * The runtime exports of a module of commands/ that are not a command: anything but a function
 * whose first two parameters are typed as the command context (one of `contexts`, or several
 * joined with `&`) and a `Principal`. Read from the syntax, so a planted helper is seen without
 * compiling the tree; types and interfaces are free to go.
 */
function nonCommands(text: string, contexts: Set<string>): string[] {
  const file = parse(text);
  const isContext = (t: ts.TypeNode | undefined): boolean =>
    t !== undefined &&
    (ts.isIntersectionTypeNode(t) ? t.types.every(isContext) : ts.isTypeReferenceNode(t) && contexts.has(t.typeName.getText(file)));
  const isPrincipal = (t: ts.TypeNode | undefined) =>
    t !== undefined && ts.isTypeReferenceNode(t) && t.typeName.getText(file) === 'Principal';
  return file.statements.flatMap((s): string[] => {
    if (ts.isFunctionDeclaration(s) && exported(s)) {
      const [context, principal] = s.parameters;
      return isContext(context?.type) && isPrincipal(principal?.type) ? [] : [s.name?.text ?? 'default'];
    }
    if ((ts.isVariableStatement(s) || ts.isClassDeclaration(s) || ts.isEnumDeclaration(s)) && exported(s)) {
      return [s.getText(file).split('\n')[0]];
    }
    if (ts.isExportDeclaration(s) && !s.isTypeOnly) return [s.getText(file)];
    return ts.isExportAssignment(s) ? [s.getText(file)] : [];
  });
}

const inside = (file: string, dir: string) => file.startsWith(path.join(root, dir) + path.sep);

describe('commands/', () => {
  it('is the only place that queues a scheduling or forecasting job', () => {
    const outside = sources(root)
      .filter((file) => !inside(file, 'commands') && !inside(file, 'jobs'))
      .filter((file) => /\benqueue\(\s*['"`](scheduling|forecasting)['"`]/.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(root, file));
    expect(outside).toEqual([]);
  });

  it("is the only importer of the store's writes: a planted import of one elsewhere fails the check", () => {
    const files = [
      plant(`server/src/routes/${tag}.ts`, "import { createUser } from '../store/write/users.ts';\nexport const x = createUser;\n"),
      plant(
        `server/src/cli/${tag}.ts`,
        "import type { RecordOptions } from '../store/write/beliefs.ts';\nexport type X = RecordOptions;\n",
      ),
      plant(`server/src/automations/${tag}.ts`, "import * as write from '../store/write/assets.ts';\nexport const x = write;\n"),
    ];
    const { ok, output } = check(files);
    expect(ok).toBe(false);
    expect(output).toContain(`error commands-are-the-only-writers: server/src/routes/${tag}.ts → server/src/store/write/users.ts`);
    expect(output).toContain(`error commands-are-the-only-writers: server/src/cli/${tag}.ts → server/src/store/write/beliefs.ts`);
    expect(output).toContain(`error commands-are-the-only-writers: server/src/automations/${tag}.ts → server/src/store/write/assets.ts`);
  }, 60_000);

  it('lets commands, the store and the named bookkeeping import them, and everyone read the store', async () => {
    const files = [
      plant(`server/src/commands/${tag}.ts`, "import { createUser } from '../store/write/users.ts';\nexport const x = createUser;\n"),
      plant(`server/src/store/${tag}.ts`, "import { recordAudit } from './write/auditLog.ts';\nexport const x = recordAudit;\n"),
      plant(`server/src/routes/${tag}.ts`, "import { getUser } from '../store/users.ts';\nexport const x = getUser;\n"),
    ];
    const { ok, output } = check(files);
    expect(output).toMatch(/no dependency violations found/);
    expect(ok).toBe(true);
    // Each exception names a file that exists and says why.
    const config = (await import(pathToFileURL(path.resolve('.dependency-cruiser.js')).href)) as {
      writersBesideCommands: [string, string][];
    };
    for (const [file, why] of config.writersBesideCommands) {
      expect(fs.existsSync(file), file).toBe(true);
      expect(why.length, file).toBeGreaterThan(10);
    }
  }, 60_000);

  it('exports only commands: functions of a context, a principal and their input', () => {
    // The context is what commands take, not a command.
    const files = sources(path.join(root, 'commands')).filter((file) => path.basename(file) !== 'context.ts');
    const texts = new Map(files.map((file) => [path.relative(root, file), fs.readFileSync(file, 'utf8')]));
    const contexts = contextTypes([...texts.values()]);
    const found = [...texts].flatMap(([file, text]) => nonCommands(text, contexts).map((what) => `${file}: ${what}`));
    expect(found).toEqual([]);
    const planted = [
      'export type Row = { id: number };',
      'export interface Input { id: number }',
      "export type { SensorUpload } from '../store/write/uploads.ts';",
      "type Queueing = Pick<CommandContext, 'db' | 'jobs'>;",
      "type Replaying = Writes<'jobs'>;",
      'export async function f(context: Replaying, principal: Principal, input: Row) {}',
      'export async function a(context: Writes, principal: Principal, input: Row) {}',
      'export async function b(context: Queueing & Uses, principal: Principal) {}',
      'export async function c(trx: Knex.Transaction, rows: Row[]) {}',
      'export function d(context: Uses, input: Row) {}',
      'export const E = 3;',
      "export { helper } from './helper.ts';",
    ].join('\n');
    expect(nonCommands(planted, contextTypes([planted]))).toEqual([
      'c',
      'd',
      'export const E = 3;',
      "export { helper } from './helper.ts';",
    ]);
  });

  it('leaves raw table writes to the store: the ways in and the machinery write through it, save the named tables', async () => {
    // An import rule cannot see a raw knex write, so the code is read for one.
    const rawTableWrite = /\(\s*['"`][a-z_]+['"`]\s*\)[^;]*?\.(insert|update|delete|del)\(/;
    const config = (await import(pathToFileURL(path.resolve('.dependency-cruiser.js')).href)) as {
      tablesBesideStore: [string, string][];
    };
    const named = config.tablesBesideStore.map(([file]) => path.resolve(file));
    // The migrations shape the store; their SQL is fixed when written.
    const writes = sources(root)
      .filter((file) => !inside(file, 'store') && !inside(file, 'db') && !named.includes(file))
      .filter((file) => rawTableWrite.test(fs.readFileSync(file, 'utf8')))
      .map((file) => path.relative(root, file));
    expect(writes).toEqual([]);
    // Each exception names a file that still writes its table, and says why.
    for (const [file, why] of config.tablesBesideStore) {
      expect(rawTableWrite.test(fs.readFileSync(file, 'utf8')), file).toBe(true);
      expect(why.length, file).toBeGreaterThan(10);
    }
    expect(rawTableWrite.test(`await trx('generic_asset').where({ id }).update({ name });`)).toBe(true);
    expect(rawTableWrite.test(`await this.db('webhook_delivery').where({ id: d.id }).delete();`)).toBe(true);
    expect(rawTableWrite.test(`await db('user').where({ id }).first();`)).toBe(false);
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
