import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The app's data folder, where Electron's app.getPath('userData') puts it for an app named Earmark. */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform = process.platform,
): string {
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Earmark');
  if (platform === 'win32')
    return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'Earmark');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'Earmark');
}

/**
 * Where exports go unless the user picks another folder: EARMARK_EXPORT_DIR when set (tests,
 * managed desktops), else the Downloads folder when there is one, else the home folder.
 */
export function defaultExportFolder(
  env: NodeJS.ProcessEnv = process.env,
  home = homedir(),
): string {
  if (env.EARMARK_EXPORT_DIR) return env.EARMARK_EXPORT_DIR;
  const downloads = join(home, 'Downloads');
  return isFolder(downloads) ? downloads : home;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
