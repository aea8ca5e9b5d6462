// Where the Electron shell finds the SQLite addon (better-sqlite3-multiple-ciphers). Imports nothing of Electron, so
// `npm run dist` (scripts/dist.ts) and the packaging tests share the path below.
import { join } from 'node:path';

/**
 * The addon, relative to the app folder. electron-builder rebuilds it for Electron's ABI and
 * unpacks it beside the archive (app.asar.unpacked): the OS loads native code from real files only.
 */
export const SQLITE_ADDON =
  'node_modules/better-sqlite3-multiple-ciphers/build/Release/better_sqlite3.node';

/** What the running Electron says about itself (app.isPackaged, process.resourcesPath). */
export interface ElectronInstall {
  isPackaged: boolean;
  resourcesPath: string;
}

/**
 * The addon's absolute path, or undefined for the package's own lookup (Node's build, beside
 * the sources). A packaged app always takes the unpacked addon and ignores EARMARK_SQLITE_BINDING:
 * an environment variable naming native code to load would reopen the door the fuses close
 * (RunAsNode, NODE_OPTIONS). The cache's worker threads get this explicit path too.
 */
export function sqliteBinding(
  install: ElectronInstall,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  if (install.isPackaged)
    return join(install.resourcesPath, 'app.asar.unpacked', ...SQLITE_ADDON.split('/'));
  // `npm start` builds the addon for Electron's ABI beside Node's build and names it here.
  return env.EARMARK_SQLITE_BINDING || undefined;
}
