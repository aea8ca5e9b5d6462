// Lint rules, including the import boundaries of docs/architecture.md:
// renderer, preload, main and service may import src/shared; main and service may import
// src/node-common (the Node code both use: SQL helpers, private files); nothing else crosses, except that main may start the
// reference service in-process for the demo clinic.
import js from '@eslint/js';
import svelte from 'eslint-plugin-svelte';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const forbid = (...groups) => ({
  'no-restricted-imports': [
    'error',
    {
      patterns: groups.map(([folder, why]) => ({
        group: [`**/${folder}/**`, `**/${folder}`],
        message: why,
      })),
    },
  ],
});

/**
 * Types only from the contract (its modules carry TypeBox schemas), values from its schema-free
 * modules (`valueModules`, a regex alternation), and no TypeBox: for code where the schemas must
 * not be loaded or bundled.
 */
const typesOnlyFromContract = (valueModules, why) => ({
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      patterns: [
        {
          regex: `/shared/(api|ipc)(/(?!${valueModules})[^/]+)?$`,
          allowTypeImports: true,
          message: `Types only from the contract here: ${why}`,
        },
        {
          group: ['@sinclair/typebox', '@sinclair/typebox/*'],
          message: `No TypeBox here: ${why}`,
        },
      ],
    },
  ],
});

const rendererBoundaries = [
  ['main', 'The renderer reaches main only through the typed IPC of src/shared/ipc.'],
  ['preload', 'The renderer reaches main only through the typed IPC of src/shared/ipc.'],
  ['service', 'The renderer never talks to the service directly.'],
  ['node-common', 'The renderer runs in a browser: no SQLite or other Node-only modules.'],
];

const nodeBuiltins = [
  'node:*',
  'fs',
  'path',
  'os',
  'child_process',
  'crypto',
  'http',
  'net',
  'stream',
];

export default tseslint.config(
  { ignores: ['node_modules', 'out', 'dist', '.earmark', 'test-results'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...svelte.configs['flat/recommended'],
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['**/*.svelte', '**/*.svelte.ts'],
    languageOptions: {
      parserOptions: { parser: tseslint.parser, extraFileExtensions: ['.svelte'] },
    },
  },
  {
    files: ['src/shared/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                '**/main/**',
                '**/renderer/**',
                '**/preload/**',
                '**/service/**',
                '**/node-common/**',
              ],
              message: 'src/shared is imported by every layer and imports none of them.',
            },
            {
              group: nodeBuiltins,
              message: 'src/shared is pure TypeScript: no Node, DOM or Electron.',
            },
            {
              group: ['electron'],
              message: 'src/shared is pure TypeScript: no Node, DOM or Electron.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/node-common/**'],
    rules: forbid(
      [
        'main',
        'src/node-common holds the Node code main and the service share; it imports neither.',
      ],
      [
        'service',
        'src/node-common holds the Node code main and the service share; it imports neither.',
      ],
      ['renderer', 'src/node-common holds the Node code main and the service share.'],
      ['preload', 'src/node-common holds the Node code main and the service share.'],
    ),
  },
  {
    files: ['src/service/**'],
    rules: forbid(
      ['main', 'The reference service stands alone: it imports only src/shared.'],
      ['renderer', 'The reference service stands alone: it imports only src/shared.'],
      ['preload', 'The reference service stands alone: it imports only src/shared.'],
    ),
  },
  {
    files: ['src/main/**'],
    rules: forbid(
      ['renderer', 'main talks to the renderer only through src/shared/ipc.'],
      ['preload', 'main talks to the preload only through src/shared/ipc.'],
    ),
  },
  {
    files: ['src/preload/**'],
    rules: forbid(
      ['main', 'The preload exposes src/shared/ipc and nothing of main.'],
      ['node-common', 'The preload exposes src/shared/ipc only.'],
      ['renderer', 'The preload exposes src/shared/ipc and nothing of the renderer.'],
      ['service', 'The preload exposes src/shared/ipc only.'],
    ),
  },
  {
    // A sandboxed preload can require only electron, events, timers and url: it takes values
    // from the contract's schema-free modules only, which are bundled into it (TypeBox is not).
    files: ['src/preload/**'],
    rules: typesOnlyFromContract(
      'constants$|events$',
      'a sandboxed preload can require only electron, events, timers and url (values come from shared/ipc/constants and shared/ipc/events).',
    ),
  },
  {
    files: ['src/renderer/**'],
    languageOptions: { globals: { ...globals.browser } },
    rules: {
      ...forbid(...rendererBoundaries),
      // The contract's modules hold TypeBox schemas: the renderer takes their types only, and
      // values from the schema-free modules, so no schema code reaches its bundle.
      ...typesOnlyFromContract(
        'values$|constants$',
        'TypeBox stays out of the renderer bundle (values come from shared/api/values and shared/ipc/constants).',
      ),
    },
  },
  {
    // Each of the cache's worker threads loads these modules when it starts (three at launch):
    // the contract's schemas and TypeBox (212 of its 260 modules) took a start through tsx from
    // 0.38 to 0.97 s of CPU, and in a bundle they are code every thread parses for nothing.
    files: ['src/main/cache/**'],
    rules: typesOnlyFromContract(
      'values$|constants$',
      "the cache's worker threads load no schemas (values come from shared/api/values).",
    ),
  },
  {
    // Components render: a screen's state and its IPC calls live in a store under lib/.
    files: [
      'src/renderer/src/components/**',
      'src/renderer/src/screens/**',
      'src/renderer/src/*.svelte',
    ],
    rules: forbid(...rendererBoundaries, [
      'bridge',
      'Components and screens render; their IPC calls live in a store under src/renderer/src/lib.',
    ]),
  },
);
