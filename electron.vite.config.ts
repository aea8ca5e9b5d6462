import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'electron-vite';
import { resolve } from 'node:path';
import { rendererBundleReport } from './scripts/build/renderer-bundle-report';

export default defineConfig({
  main: {
    // Worker threads, built beside main (src/main/base/worker-entry.ts finds them): the cache's
    // database, and the SHA-256 and peaks of audio downloads.
    build: {
      rollupOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          'cache-worker': resolve('src/main/cache/worker.ts'),
          'audio-worker': resolve('src/main/audio/digest-worker.ts'),
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
    build: {
      // electron-vite leaves the renderer unminified; minified, the page parses and starts
      // sooner (bench/player.bench.ts: page load → waveform).
      minify: true,
      rollupOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
    plugins: [svelte(), rendererBundleReport()],
  },
});
