// No import cycle anywhere in src/ (npm run lint; docs/architecture.md). Type-only imports
// count too: a type cycle (context.ts ↔ core.ts) still ties two modules into one.
// The layer boundaries themselves are ESLint's (eslint.config.js).
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
