import zlib from 'node:zlib';
import type { Plugin, Rolldown } from 'vite';

type OutputBundle = Rolldown.OutputBundle;

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;

/**
 * The files a browser needs before the UI shows anything: the entry chunk, the chunks it
 * imports statically (transitively) and their CSS. Chunks behind a dynamic `import()` (the
 * charts) load later and are not part of the first load.
 * @param bundle the build output.
 * @returns file names of the first load.
 */
export function firstLoadFiles(bundle: OutputBundle): string[] {
  const files = new Set<string>();
  const visit = (name: string) => {
    const item = bundle[name];
    if (!item || files.has(name)) return;
    files.add(name);
    if (item.type !== 'chunk') return;
    for (const css of item.viteMetadata?.importedCss ?? []) files.add(css);
    item.imports.forEach(visit);
  };
  for (const [name, item] of Object.entries(bundle)) if (item.type === 'chunk' && item.isEntry) visit(name);
  for (const [name, item] of Object.entries(bundle)) if (item.type === 'asset' && name.endsWith('.html')) files.add(name);
  return [...files];
}

const gzipSize = (content: string | Uint8Array) => zlib.gzipSync(content, { level: 9 }).length;

/**
 * Reports the gzipped size of the UI's first load and of everything built, and fails the
 * build when the first load exceeds its budget.
 * @param options the budget in bytes (gzipped).
 * @returns the Vite plugin.
 */
export function bundleBudget(options: { firstLoadLimitBytes: number }): Plugin {
  return {
    name: 'flexsite-bundle-budget',
    apply: 'build',
    generateBundle(_output, bundle) {
      const sizeOf = (name: string) => {
        const item = bundle[name];
        return gzipSize(item.type === 'chunk' ? item.code : item.source);
      };
      const first = firstLoadFiles(bundle);
      const firstBytes = first.reduce((sum, name) => sum + sizeOf(name), 0);
      const totalBytes = Object.keys(bundle).reduce((sum, name) => sum + sizeOf(name), 0);
      this.info(
        `UI bundle: first load ${kB(firstBytes)} gzipped (budget ${kB(options.firstLoadLimitBytes)}), ` +
          `all files ${kB(totalBytes)} gzipped`,
      );
      if (firstBytes > options.firstLoadLimitBytes) {
        this.error(
          `The UI's first load is ${kB(firstBytes)} gzipped, over its budget of ${kB(options.firstLoadLimitBytes)}: ${first.join(', ')}`,
        );
      }
    },
  };
}
