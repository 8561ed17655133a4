import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { bundleBudget } from './scripts/bundleBudget.ts';

/** The web UI: React in `renderer/`, built to `renderer/dist`, which the Koa server serves at `/`. */
export default defineConfig({
  root: 'renderer',
  base: '/',
  plugins: [react(), bundleBudget({ firstLoadLimitBytes: 1_000_000 })],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Vega is one large chunk by nature; it is loaded on demand and counted by the budget instead.
    chunkSizeWarningLimit: 2000,
  },
  // `npm run dev:ui` talks to a server started with `npm start` on the default port.
  server: { proxy: { '/api': 'http://127.0.0.1:5000' } },
});
