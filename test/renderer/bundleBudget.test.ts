import { describe, expect, it } from 'vitest';
import type { Rolldown } from 'vite';
import { firstLoadFiles } from '../../scripts/bundleBudget.ts';

const chunk = (name: string, props: { isEntry?: boolean; imports?: string[]; css?: string[] }) => ({
  type: 'chunk',
  fileName: name,
  code: '',
  isEntry: props.isEntry ?? false,
  imports: props.imports ?? [],
  viteMetadata: { importedCss: new Set(props.css ?? []), importedAssets: new Set() },
});

describe('the UI bundle budget', () => {
  it('counts the entry, its static imports and their CSS, not what loads on demand', () => {
    const bundle = {
      'index.html': { type: 'asset', fileName: 'index.html', source: '' },
      'assets/index.js': chunk('assets/index.js', { isEntry: true, imports: ['assets/react.js'], css: ['assets/index.css'] }),
      'assets/react.js': chunk('assets/react.js', {}),
      'assets/index.css': { type: 'asset', fileName: 'assets/index.css', source: '' },
      'assets/embed.js': chunk('assets/embed.js', { imports: ['assets/react.js'] }),
    } as unknown as Rolldown.OutputBundle;
    expect(firstLoadFiles(bundle).sort()).toEqual(['assets/index.css', 'assets/index.js', 'assets/react.js', 'index.html']);
  });
});
