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
        // The hub timeline once more with the clinic in a zone that is not UTC and whose
        // daylight saving moves by half an hour (+10:30/+11): local days, the keyboard's minutes,
        // and the service's messages written in UTC must agree whatever the machine's zone is.
        test: {
          name: 'tz-lord-howe',
          include: ['test/e2e/hub-timeline.test.ts'],
          env: { TZ: 'Australia/Lord_Howe' },
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
