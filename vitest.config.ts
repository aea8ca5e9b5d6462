import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vitest/config';

const shared = {
  // Integration tests start real servers and SQLite databases; two cores, so keep it modest.
  testTimeout: 20_000,
  hookTimeout: 30_000,
};

export default defineConfig({
  test: {
    maxWorkers: 2,
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/renderer/**'],
          ...shared,
        },
      },
      {
        // The renderer's stores (Svelte runes in .svelte.ts), driven against a fake of the IPC
        // API: compiled for the browser, run in Node with no DOM (they hold no markup).
        plugins: [svelte()],
        resolve: { conditions: ['browser'] },
        test: {
          name: 'renderer',
          include: ['test/renderer/**/*.test.ts'],
          ...shared,
        },
      },
    ],
  },
});
