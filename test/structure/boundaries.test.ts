import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { check, plant, tag } from '../helpers/planting.ts';

/**
 * The import rules of .dependency-cruiser.js, which `npm test` runs as `npm run lint:deps`: the
 * tree obeys them, a planted violation of each fails the check, and docs/ARCHITECTURE.md's layers
 * table says what the rule file says.
 */

interface Layer {
  name: string;
  paths: string[];
  what: string;
}

describe('import boundaries', () => {
  it('hold for the whole tree, as npm test checks them', () => {
    const run = spawnSync('npm', ['run', '--silent', 'lint:deps'], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).toMatch(/no dependency violations found/);
    expect(run.status).toBe(0);
  }, 120_000);

  it('fail on a planted violation of each rule, naming the rule and the import', () => {
    const files = [
      plant(`worker/src/${tag}.ts`, "import '../../server/src/domain/time.ts';\n"),
      plant(`server/src/domain/${tag}.ts`, "import '../contracts/paging.ts';\n"),
      plant(`server/src/store/${tag}.ts`, "import '../scheduling/money.ts';\n"),
      plant(`server/src/scheduling/${tag}.ts`, "import '../http/context.ts';\n"),
      plant(`server/src/queries/${tag}.ts`, "import '../commands/context.ts';\n"),
      plant(`server/src/forecasting/${tag}.ts`, "import '../../../worker/src/forecasting/backtest.ts';\n"),
      plant(`server/src/db/migrations/9999_${tag}.ts`, "import '../../config.ts';\n"),
      plant(`renderer/src/${tag}.ts`, "import '../../server/src/store/users.ts';\n"),
      plant(`server/src/jobs/${tag}A.ts`, `import './${tag}B.ts';\n`),
      plant(`server/src/jobs/${tag}B.ts`, `import '../workers/${tag}C.ts';\n`),
      plant(`server/src/workers/${tag}C.ts`, `import '../jobs/${tag}A.ts';\n`),
    ];
    const { ok, output } = check(files);
    expect(ok).toBe(false);
    const violations = [
      ['layer-worker', `worker/src/${tag}.ts`, 'server/src/domain/time.ts'],
      ['layer-domain', `server/src/domain/${tag}.ts`, 'server/src/contracts/paging.ts'],
      ['layer-store', `server/src/store/${tag}.ts`, 'server/src/scheduling/money.ts'],
      ['layer-handlers', `server/src/scheduling/${tag}.ts`, 'server/src/http/context.ts'],
      ['layer-queries', `server/src/queries/${tag}.ts`, 'server/src/commands/context.ts'],
      ['server-enters-worker-through-tasks', `server/src/forecasting/${tag}.ts`, 'worker/src/forecasting/backtest.ts'],
      ['migrations-are-fixed', `server/src/db/migrations/9999_${tag}.ts`, 'server/src/config.ts'],
      ['renderer-speaks-http', `renderer/src/${tag}.ts`, 'server/src/store/users.ts'],
    ];
    for (const [rule, from, to] of violations) expect(output).toContain(`error ${rule}: ${from} → ${to}`);
    // The circle through jobs/ and workers/ (one layer, so only the circle rule stands against it).
    expect(output).toMatch(new RegExp(`error no-circle-across-folders: server/src/(jobs|workers)/${tag}`));
  }, 60_000);

  it('let a circle inside one folder and the server’s imports of worker/src/tasks.ts pass', () => {
    const files = [
      plant(`server/src/store/${tag}A.ts`, `import './${tag}B.ts';\n`),
      plant(`server/src/store/${tag}B.ts`, `import './${tag}A.ts';\nimport '../../../worker/src/tasks.ts';\n`),
    ];
    const { ok, output } = check(files);
    expect(output).toMatch(/no dependency violations found/);
    expect(ok).toBe(true);
  }, 60_000);

  it('are the layers docs/ARCHITECTURE.md lists, one row per layer, in order, and the rules it names', async () => {
    const config = (await import(pathToFileURL(path.resolve('.dependency-cruiser.js')).href)) as {
      layers: Layer[];
      default: { forbidden: { name: string }[] };
    };
    const [layers, rules] = [config.layers, config.default.forbidden];
    const doc = fs.readFileSync('docs/ARCHITECTURE.md', 'utf8');
    const lines = doc.slice(doc.indexOf('| Layer ')).split('\n');
    const rows = lines
      .slice(
        2,
        lines.findIndex((line) => !line.startsWith('|')),
      )
      .map((line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()),
      );
    expect(rows).toEqual(layers.map((l) => [`\`${l.name}\``, l.paths.map((p) => `\`${p}\``).join(', '), l.what]));
    for (const rule of rules.filter((r) => !r.name.startsWith('layer-'))) expect(doc).toContain(`\`${rule.name}\``);
  });
});
