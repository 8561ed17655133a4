import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * No production function over 100 lines: a long function mixes concerns that are easier to read,
 * test and change apart. Every function-like node with a body counts (declarations, methods,
 * arrows, function expressions, React components), from its first token to its last, so an outer
 * function is as long as everything nested in it. Tests are not production code and are not walked.
 */
const MAX_LINES = 100;
const productionRoots = ['server/src', 'worker/src', 'main', 'bench', 'scripts', 'renderer/src'];

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sources(full);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** What a reader would call the function: its own name, the name it is bound to, or what it is handed to. */
function nameOf(node: ts.FunctionLikeDeclaration, file: ts.SourceFile): string {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText(file);
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return 'anonymous';
}

/**
 * The functions in a source text that are longer than the limit.
 * @returns one line per function, `name (N lines)`.
 */
export function longFunctions(fileName: string, text: string, maxLines = MAX_LINES): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const line = (pos: number) => file.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const lines = line(node.getEnd()) - line(node.getStart(file)) + 1;
      if (lines > maxLines) found.push(`${nameOf(node as ts.FunctionLikeDeclaration, file)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('production functions', () => {
  it(`are at most ${MAX_LINES} lines long`, () => {
    const long = productionRoots
      .flatMap(sources)
      .flatMap((file) => longFunctions(file, fs.readFileSync(file, 'utf8')).map((f) => `${file.split(path.sep).join('/')}: ${f}`));
    expect(long).toEqual([]);
  });

  it('are measured whatever their form: declarations, arrows, methods and nested callbacks', () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join('\n');
    // A function of 100 lines passes; one of 101 does not (first and last line included).
    expect(longFunctions('a.ts', `function ok() {\n${body(98)}\n}`)).toEqual([]);
    expect(longFunctions('a.ts', `function long() {\n${body(99)}\n}`)).toEqual(['long (101 lines)']);
    expect(longFunctions('a.ts', `export const arrow = () => {\n${body(99)}\n};`)).toEqual(['arrow (101 lines)']);
    expect(longFunctions('a.ts', `class C {\n  method() {\n${body(99)}\n  }\n}`)).toEqual(['method (101 lines)']);
    // A long callback is long, and so is the function around it.
    expect(longFunctions('a.ts', `function outer() {\n  run(() => {\n${body(99)}\n  });\n}`)).toEqual([
      'outer (103 lines)',
      'anonymous (101 lines)',
    ]);
    expect(longFunctions('a.tsx', `export function Panel() {\n  return (\n    <div>\n${body(98)}\n    </div>\n  );\n}`)).toEqual([
      'Panel (104 lines)',
    ]);
  });
});
