import type { CoreContext } from '../context';
import { AppError } from '../errors';
import { parseExternalUrl } from '../external-url';
import type { RpcHandlers } from '../rpc';

export const appHandlers = ({
  options,
  connection,
  defaultExportFolder,
}: CoreContext): Pick<RpcHandlers, 'app.info' | 'app.connection' | 'app.openExternal'> => ({
  'app.info': () => ({
    version: options.version,
    shell: options.shell,
    platform: process.platform,
    // Electron has the system's folder dialog; the browser shell takes a typed path.
    folderChoice: options.shell === 'electron' ? 'dialog' : 'path',
    defaultExportFolder: defaultExportFolder(),
  }),
  'app.connection': () => connection(),
  'app.openExternal': async ({ url }) => {
    if (!options.openExternal)
      throw new AppError('unsupported', 'Links cannot be opened from here.');
    await options.openExternal(parseExternalUrl(url));
    return null;
  },
});
