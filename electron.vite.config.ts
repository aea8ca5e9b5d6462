import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'electron-vite';
import { resolve } from 'node:path';

export default defineConfig({
  main: {
    // The cache's database runs in worker threads (src/main/cache/worker.ts), built beside main.
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          'cache-worker': resolve('src/main/cache/worker.ts'),
        },
      },
    },
  },
  preload: {
    // A sandboxed preload cannot load ES modules or other files: one CommonJS bundle.
    build: {
      rollupOptions: {
        input: { index: resolve('src/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false },
      },
    },
  },
  renderer: {
    root: resolve('src/renderer'),
    build: { rollupOptions: { input: { index: resolve('src/renderer/index.html') } } },
    plugins: [svelte()],
  },
});
