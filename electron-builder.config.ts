// electron-builder's configuration. `npm run dist` (scripts/dist.ts) builds with it; plain
// `npx electron-builder --config electron-builder.config.ts` reads it too. What it builds, the
// fuses and why, and how the app finds its SQLite addon: docs/packaging.md.
import type { Configuration } from 'electron-builder';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { APP_ID } from './src/main/electron/app-id';

const config: Configuration = {
  // The running app carries the same id on Windows (notifications need it: app-id.ts).
  appId: APP_ID,
  // package.json's productName too: Electron names the app, and its data folder, from there.
  productName: 'Earmark',
  // The deb needs a homepage and a maintainer, the installers show the publisher. Placeholders
  // (the reserved .invalid domain) until Earmark has a public home: replace before shipping.
  extraMetadata: {
    homepage: 'https://earmark.invalid',
    author: { name: 'Earmark', email: 'support@earmark.invalid' },
  },
  // buildResources holds icon.png (1024 px, drawn in icon.svg), from which electron-builder makes
  // the .icns, the .ico and the Linux sizes; it is never packed into the app.
  directories: { output: 'dist', buildResources: 'resources/build' },
  // The electron-vite build and package.json; the demo clinic's speech, which the in-app
  // reference service reads from the app folder (src/main/index.ts: resourcesDir). electron-builder
  // adds the production dependencies itself; the SQLite addon's C sources and build leftovers stay out.
  files: [
    'out/**',
    'package.json',
    'resources/demo-speech/manifest.json',
    'resources/demo-speech/*.{wav,m4a}',
    '!**/node_modules/better-sqlite3-multiple-ciphers/{deps,src}/**',
    '!**/node_modules/better-sqlite3-multiple-ciphers/build/Release/{obj,obj.target,.deps}/**',
    '!**/node_modules/better-sqlite3-multiple-ciphers/build/Release/{test_extension.node,*.a}',
  ],
  asar: true,
  // Native addons (SQLite's, the keychain's) beside the archive, in app.asar.unpacked: native
  // code loads from real files (from inside the archive, Electron would copy it to a temporary
  // file first). The app names the SQLite addon's path itself (src/main/electron/sqlite-binding.ts).
  asarUnpack: ['**/*.node'],
  // The SQLite addon (better-sqlite3-multiple-ciphers) compiled for Electron's ABI by electron-builder (@electron/rebuild), from
  // source: no prebuilt binary is downloaded.
  npmRebuild: true,
  buildDependenciesFromSource: true,
  electronFuses: {
    runAsNode: false,
    enableCookieEncryption: true,
    enableNodeOptionsEnvironmentVariable: false,
    enableNodeCliInspectArguments: false,
    enableEmbeddedAsarIntegrityValidation: true,
    onlyLoadAppFromAsar: true,
    // The renderer is served from earmark://, never file://.
    grantFileProtocolExtraPrivileges: false,
    // Flipping fuses breaks the signature Electron ships with; unsigned macOS builds are signed
    // again ad hoc, without which arm64 Macs refuse to start them. Acts on macOS builds only.
    resetAdHocDarwinSignature: true,
  },
  // An Electron handed over unpacked or as a local archive (scripts/dist.ts) still holds its
  // default app, which electron-builder removes only from its own downloads. The packaged app
  // never loads it (onlyLoadAppFromAsar): it is not shipped.
  afterExtract: ({ appOutDir, packager }) =>
    rm(join(packager.getResourcesDir(appOutDir), 'default_app.asar'), { force: true }),
  // Not published anywhere: the packages stay in dist/.
  publish: null,
  linux: {
    // The deb is the Linux package of record: it installs Earmark in /opt/Earmark, where
    // electron-builder's after-install script loads an AppArmor profile that lets
    // /opt/Earmark/earmark create the user namespaces Chromium's sandbox needs (Ubuntu 24.04
    // denies them to unconfined programs), and makes chrome-sandbox setuid only on a kernel
    // without them. The AppImage runs from wherever it is saved, which no profile can name in
    // advance: it needs unprivileged user namespaces, or a profile its user adds
    // (docs/packaging.md). The sandbox is never turned off (no --no-sandbox anywhere).
    target: ['deb', 'AppImage'],
    category: 'Office',
    executableName: 'earmark',
    synopsis: 'Review clinic hub audio, turn it into records, follow up on visits',
  },
  win: { target: ['nsis'] },
  mac: {
    target: ['dmg'],
    category: 'public.app-category.medical',
    // Signing is not configured (docs/packaging.md says how): no identity is looked up.
    identity: null,
  },
};

export default config;
