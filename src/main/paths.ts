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
