// No import cycle anywhere in src/ (npm run lint; docs/architecture.md). Type-only imports
// count too: a type cycle (context.ts ↔ core.ts) still ties two modules into one.
// The layers of src/main (docs/architecture.md, "The main process: layers"): the base layer
// imports no other part of main; the areas never import the composition root (the modules in
// src/main itself), the IPC handlers or the shells. The boundaries between src/shared, main,
// the preload, the renderer and the service are ESLint's (eslint.config.js).

/** An area of main: any folder of src/main but the shells and the handlers (composition). */
const AREA = '^src/main/(?!electron/|web/|handlers/)[^/]+/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'Modules that import each other, directly or through others, are one module in two files.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'main-areas-not-root',
      severity: 'error',
      comment:
        'src/main itself is the composition root (core.ts, context.ts, rpc.ts, account-scope.ts) and the Electron entry: it imports the areas, never the other way round. What every area needs goes in src/main/base.',
      from: { path: AREA },
      to: { path: '^src/main/[^/]+\\.ts$' },
    },
    {
      name: 'main-areas-not-composition',
      severity: 'error',
      comment:
        'The IPC handlers and the shells sit above the areas: an area is used by them, never uses them.',
      from: { path: AREA },
      to: { path: '^src/main/(handlers|electron|web)/' },
    },
    {
      name: 'main-base-imports-no-area',
      severity: 'error',
      comment:
        'src/main/base is what every area may import (errors, atomic writes, paths, workers, closables): it imports only itself and src/shared.',
      from: { path: '^src/main/base/' },
      to: { path: '^src/(main/(?!base/)|service/|preload/|renderer/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.svelte', '.json'],
      mainFields: ['module', 'main', 'types'],
    },
    progress: { type: 'none' },
  },
};
