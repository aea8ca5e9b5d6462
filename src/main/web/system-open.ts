import { spawn } from 'node:child_process';
import { AppError } from '../base/errors';
import { findOnPath } from './executables';

/**
 * The desktop's own "open" command (xdg-open; open on macOS), which shows a folder in the file
 * manager or a link in the browser; undefined when this computer has none (a server, CI).
 */
export function systemOpener(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): ((target: string) => Promise<void>) | undefined {
  const command = findOnPath([platform === 'darwin' ? 'open' : 'xdg-open'], env);
  if (!command) return undefined;
  return (target) =>
    new Promise((resolve, reject) => {
      const child = spawn(command, [target], { stdio: 'ignore', detached: true });
      child.once('error', (error) =>
        reject(new AppError('open_failed', `${target} could not be opened: ${error.message}`)),
      );
      child.once('spawn', () => {
        child.unref();
        resolve();
      });
    });
}
